// Squads through the real runtime and a scripted model: the orchestrator creates a squad, adds two agents, logs a
// decision and delegates to one agent by name; the worker's recorded request carries the charter, the decision and
// the tier's model; recall and the next session's system message show the squad.
import * as assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import type { RecordedRequest } from '../support/scriptedModelServer';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

/** The tool results the orchestrator's requests carried, newest last. */
function toolResults(core: CoreFixture): string[] {
  return core.server
    .chatRequests()
    .flatMap((r: RecordedRequest) => r.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)))
    .filter((v, i, all) => all.indexOf(v) === i);
}

describe('squads (real runtime, scripted model)', function () {
  this.timeout(90_000);
  let core: CoreFixture;
  let project: string;

  beforeEach(async () => {
    core = await startCore();
    project = join(core.workspace, 'shop');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'package.json'), JSON.stringify({ devDependencies: { typescript: '^5', jest: '^29' } }));
  });
  afterEachCore(() => core);

  /** One user turn whose model reply is `calls`, then `reply` after the tool results. */
  async function turn(text: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>, reply = 'Done.'): Promise<void> {
    core.server.on({ lastUserIncludes: text, afterToolResult: false, name: text }, { toolCalls: calls });
    core.server.on({ afterToolResult: true, name: `after ${text}` }, { text: reply });
    const result = await core.orchestrator.enqueue(text, { channel: 'panel' }).done;
    assert.equal(result.content, reply);
  }

  it('create, add two agents, log a decision, delegate by name, recall; the next session lists the squad', async () => {
    await turn('set up a squad for the shop', [{ name: 'squad_create', arguments: { name: 'shop', project_dir: project, universe: 'Ghostbusters' } }]);
    assert.match(toolResults(core).at(-1)!, /Squad 'shop' created/);

    await turn('analyze it', [{ name: 'squad_analyze', arguments: { project_dir: 'shop' } }]);
    assert.match(toolResults(core).at(-1)!, /Languages: JavaScript, TypeScript[\s\S]*Test tools: jest/);

    await turn('add a frontend lead', [
      {
        name: 'squad_add_agent',
        arguments: { squad: 'shop', role_title: 'Frontend Architect', charter: 'Owns the component tree; CHARTER-FRONT-42.', model_tier: 'high' },
      },
    ]);
    await turn('add a test engineer', [
      {
        name: 'squad_add_agent',
        arguments: { squad: 'shop', role_title: 'Test Engineer', charter: 'Writes jest tests first; CHARTER-TEST-77.', model_tier: 'low' },
      },
    ]);
    assert.deepEqual(
      core.squads.agents('shop').map((a) => [a.name, a.role, a.tier]),
      [
        ['Venkman', 'Frontend Architect', 'high'],
        ['Stantz', 'Test Engineer', 'low'],
      ],
    );

    // A bad tier is answered with a clear error, and nothing is added.
    await turn('add a bad one', [{ name: 'squad_add_agent', arguments: { squad: 'shop', role_title: 'X', charter: 'y', model_tier: 'ultra' } }], 'Sorry.');
    assert.match(toolResults(core).at(-1)!, /Invalid arguments for squad_add_agent: model_tier/);
    assert.equal(core.squads.agents('shop').length, 2);

    await turn('we use vitest-free jest only', [
      { name: 'squad_log_decision', arguments: { squad: 'shop', decision: 'DECISION-JEST-ONLY: tests use jest, never vitest.' } },
    ]);
    // One longer than a worker is told whole is refused, saying so: before, it was kept and cut to its first 400
    // characters in every brief, its end (here the rule itself) never reaching a worker.
    await turn(
      'log the long rule',
      [{ name: 'squad_log_decision', arguments: { squad: 'shop', decision: `${'Background. '.repeat(40)}RULE-END: never use lodash.` } }],
      'Sorry.',
    );
    assert.match(toolResults(core).at(-1)!, /Invalid arguments for squad_log_decision: decision: at most 400 characters/);
    assert.equal(core.squads.decisionCount('shop'), 1, 'nothing logged');

    // Delegate to Stantz by name: a worker starts with the charter, the decision and the low tier's model.
    core.server.on({ systemIncludes: 'CHARTER-TEST-77', name: 'Stantz the worker' }, { text: 'Added tests for the cart.' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'shop-stantz'", name: 'result of Stantz' }, { text: 'Stantz finished.' });
    await turn(
      'ask Stantz to test the cart',
      [{ name: 'squad_delegate', arguments: { squad: 'shop', agent_name: 'stantz', task: 'Write jest tests for the cart module.' } }],
      'Stantz is on it.',
    );
    assert.match(toolResults(core).at(-1)!, /Stantz \(Test Engineer\) is working as worker 'shop-stantz'.* on claude-haiku-4\.5/);
    const workerReq = await waitFor('the worker request', () => core.server.chatRequests().find((r) => r.systemText.includes('CHARTER-TEST-77')));
    assert.equal(workerReq.model, core.settings.routing.tiers.fast, 'a low-tier agent runs on the fast tier');
    assert.match(workerReq.systemText, /You are Stantz, Test Engineer, of squad 'shop'/);
    assert.match(workerReq.systemText, /DECISION-JEST-ONLY/);
    assert.match(workerReq.systemText, /Teammates\n- Venkman: Frontend Architect/);
    assert.ok(!workerReq.systemText.includes('CHARTER-FRONT-42'), "the other agent's charter is not in this worker's brief");
    assert.match(workerReq.lastUserText ?? '', /Write jest tests for the cart module/);
    await waitFor('the result turn', () => core.events.some((e) => e.type === 'turn.completed' && e.origin.channel === 'background'));
    assert.equal(core.squads.tasks('shop')[0]?.agent, 'Stantz');
    // The worker's model calls count for it and for its squad.
    await waitFor('usage', () => core.usage.total('squad', 'shop').requests > 0);
    assert.ok(core.usage.total('worker', 'shop-stantz').inputTokens > 0);

    // The decision logged appears in the next recall.
    await turn('what did the shop squad decide?', [{ name: 'squad_recall', arguments: { squad: 'shop' } }]);
    const recall = toolResults(core).at(-1)!;
    assert.match(recall, /Decisions \(newest first\):\n- DECISION-JEST-ONLY/);
    assert.match(recall, /shop-stantz \(Stantz\)/);

    // The next session's system message lists the squad (bounded summary).
    core.store.deleteState('orchestrator_session_id');
    await core.restart();
    core.server.on({ lastUserIncludes: 'hello again', name: 'hello again' }, { text: 'Hi.' });
    await core.orchestrator.enqueue('hello again', { channel: 'panel' }).done;
    const system = core.server.chatRequests().at(-1)!.systemText;
    assert.match(system, /## Squads\n.*\n- shop: .*shop — Venkman \(Frontend Architect\), Stantz \(Test Engineer\); 1 decision\(s\)/);

    await turn('delete the squad', [{ name: 'squad_delete', arguments: { squad: 'shop' } }]);
    assert.deepEqual(core.squads.list(), []);
    core.assertScriptDone();
  });

  it("a later worker that takes a finished squad worker's name is not billed to the squad", async () => {
    await core.squads.create({ name: 'shop', projectDir: project });
    const results = () => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;
    core.server.on({ lastUserIncludes: 'SQUAD-TASK', name: "the squad's worker" }, { text: 'squad work done' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'shop-squad'", name: 'both results' }, { text: 'noted' }, { text: 'noted again' });
    const { worker } = await core.squads.delegate({ squad: 'shop', task: 'SQUAD-TASK tidy the readme' });
    assert.equal(worker.name, 'shop-squad');
    await waitFor('its result', () => results() >= 1);
    await waitFor('its usage', () => core.usage.total('squad', 'shop').requests > 0);
    const billed = core.usage.total('squad', 'shop');

    core.server.on({ lastUserIncludes: 'PLAIN-CHORE', name: 'a plain worker of the same name' }, { text: 'chore done' });
    await core.pool.create({ name: 'shop-squad', workingDir: project, prompt: 'PLAIN-CHORE unrelated' });
    await waitFor('its result', () => results() >= 2);
    await waitFor('its usage', () => core.usage.total('worker', 'shop-squad').requests >= 2);
    assert.deepEqual(core.usage.total('squad', 'shop'), billed, 'the squad is billed for its own task only');
  });

  it('clear errors: unknown squad, a folder that does not exist, an unknown agent', async () => {
    await turn('recall ghosts', [{ name: 'squad_recall', arguments: { squad: 'ghosts' } }], 'None.');
    assert.match(toolResults(core).at(-1)!, /No squad named 'ghosts'.*create one with squad_create/);
    await turn('create in nowhere', [{ name: 'squad_create', arguments: { name: 'x', project_dir: join(core.workspace, 'missing') } }], 'No.');
    assert.match(toolResults(core).at(-1)!, /is not an existing folder/);
    await turn('create with relative dir', [{ name: 'squad_create', arguments: { name: 'y', project_dir: 'shop' } }], 'No.');
    assert.match(toolResults(core).at(-1)!, /must be an absolute path/);
    await core.squads.create({ name: 'shop', projectDir: project });
    await turn('delegate to nobody', [{ name: 'squad_delegate', arguments: { squad: 'shop', agent_name: 'Egon', task: 't' } }], 'No.');
    assert.match(toolResults(core).at(-1)!, /Squad 'shop' has no agent named 'Egon'.*squad_add_agent/);
    // Squad names are one name in any case, as agents' are: a second 'Shop' would share the workers' names of 'shop'.
    await turn('create Shop', [{ name: 'squad_create', arguments: { name: 'Shop', project_dir: project } }], 'No.');
    assert.match(toolResults(core).at(-1)!, /A squad named 'Shop' already exists/);
    await turn('recall SHOP', [{ name: 'squad_recall', arguments: { squad: 'SHOP' } }], 'Here.');
    assert.match(toolResults(core).at(-1)!, /^Squad 'shop' — /);
    await turn('delete SHOP', [{ name: 'squad_delete', arguments: { squad: 'SHOP' } }], 'Gone.');
    assert.deepEqual(
      core.squads.list().map((s) => s.name),
      [],
    );
    core.assertScriptDone();
  });
});
