// Skills and control of Baton from the chat, through the real runtime and a scripted model: a skill installed from a
// local git repository (made with real git) reaches the next sessions (orchestrator and worker), and is gone after
// its removal; toggle_auto flips the setting through the host and the panel header follows; switch_model changes the
// model of the next request.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { HostMessage } from '../../src/shared/protocol';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import type { RecordedRequest } from '../support/scriptedModelServer';
import { afterEachCore } from '../support/afterEachCore';
import { waitFor } from '../support/waitFor';

const git = promisify(execFile);

/** The skills the runtime offered in a request: the <available_skills> of its `skill` tool. */
function offeredSkills(req: RecordedRequest | undefined): string[] {
  const body = req?.body as { tools?: Array<{ function?: { name?: string; description?: string } }> } | undefined;
  const description = body?.tools?.find((t) => t.function?.name === 'skill')?.function?.description ?? '';
  return [...description.matchAll(/<name>([^<]+)<\/name>/g)].map((m) => m[1]!);
}

describe('skills and control from the chat (real runtime, scripted model)', function () {
  this.timeout(90_000);
  let core: CoreFixture;
  const hostCalls: string[] = [];

  beforeEach(async () => {
    hostCalls.length = 0;
    core = await startCore({
      overrides: {
        control: {
          setRoutingAuto: async (on) => {
            hostCalls.push(`auto ${on}`);
            core.settings.routing.auto = on;
          },
          setModel: async (model) => {
            hostCalls.push(`model ${model}`);
            core.settings.routing.model = model;
          },
        },
      },
    });
  });
  afterEachCore(() => core);

  async function turn(text: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<string> {
    // Only the orchestrator's requests: a classifier request (auto routing) quotes the user's text too.
    core.server.on({ lastUserIncludes: text, afterToolResult: false, systemIncludes: 'You are Baton', name: text }, { toolCalls: calls });
    core.server.on({ afterToolResult: true, systemIncludes: 'You are Baton', name: `after ${text}` }, { text: 'ok' });
    await core.orchestrator.enqueue(text, { channel: 'panel' }).done;
    return String(core.server.chatRequests().at(-1)?.messages.at(-1)?.content ?? '');
  }

  async function plain(text: string): Promise<RecordedRequest> {
    core.server.on({ lastUserIncludes: text, systemIncludes: 'You are Baton', name: text }, { text: 'fine' });
    await core.orchestrator.enqueue(text, { channel: 'panel' }).done;
    return core.server.chatRequests().at(-1)!;
  }

  it('skill_install from a local git repository reaches the next sessions; skill_remove takes it away', async () => {
    const repo = join(core.root, 'skill-repo');
    await mkdir(repo, { recursive: true });
    await writeFile(
      join(repo, 'SKILL.md'),
      '---\nname: release-notes\ndescription: Writes release notes in the house style SKILLMARK-314\n---\n\n# Release notes\n\nUse bullet points.\n',
    );
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    await git('git', ['init', '-q', repo], { env });
    await git('git', ['-C', repo, 'add', '.'], { env });
    await git('git', ['-C', repo, 'commit', '-q', '-m', 'skill'], { env });

    assert.deepEqual(offeredSkills(await plain('before the skill')), []);
    // Standing instructions for every session: the user is asked first, and a no installs nothing.
    assert.match(
      await turn('plant a skill', [{ name: 'skill_install', arguments: { source: repo } }]),
      /The user did not approve installing the skill from .*skill-repo\. Do not retry; ask them\./,
    );
    assert.match(await turn('which skills now?', [{ name: 'list_skills', arguments: {} }]), /^No skills installed/);
    core.broker.answer = 'once';
    assert.match(
      await turn('learn the release notes skill', [{ name: 'skill_install', arguments: { source: repo } }]),
      /Installed 'release-notes' \(Writes release notes/,
    );
    assert.deepEqual(
      core.broker.asked.map((p) => [p.worker, p.kind, p.detail]),
      [
        ['Baton', 'install a skill', `install the skill from ${repo} for every session`],
        ['Baton', 'install a skill', `install the skill from ${repo} for every session`],
      ],
    );
    assert.match(await turn('which skills?', [{ name: 'list_skills', arguments: {} }]), /- release-notes: Writes release notes/);
    assert.deepEqual(offeredSkills(await plain('after the skill')), ['release-notes'], "the next session's request carries the skill");

    // Workers are created with it too.
    core.server.on({ systemIncludes: "You are 'skilled'", name: 'worker' }, { text: 'done' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'skilled'", name: 'result' }, { text: 'noted' });
    await turn('start a worker', [{ name: 'create_worker_session', arguments: { name: 'skilled', working_dir: core.workspace, initial_prompt: 'say done' } }]);
    const deadline = Date.now() + 20_000;
    while (!core.events.some((e) => e.type === 'turn.completed' && e.origin.channel === 'background') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 25));
    const workerReq = core.server.chatRequests().find((r) => r.systemText.includes("You are 'skilled'"));
    assert.deepEqual(offeredSkills(workerReq), ['release-notes'], "the worker's request carries the skill");

    assert.match(await turn('forget that skill', [{ name: 'skill_remove', arguments: { name: 'release-notes' } }]), /Removed skill 'release-notes'/);
    assert.deepEqual(core.broker.asked.at(-1), {
      id: core.broker.asked.at(-1)!.id,
      worker: 'Baton',
      kind: 'remove a skill',
      detail: "remove the skill 'release-notes'",
      conversation: core.conversations.activeId,
    });
    assert.deepEqual(offeredSkills(await plain('after removing')), [], 'the one after does not');
    const asked = core.broker.asked.length;
    assert.match(await turn('remove it again', [{ name: 'uninstall_skill', arguments: { name: 'release-notes' } }]), /No installed skill 'release-notes'/);
    assert.equal(core.broker.asked.length, asked, 'nothing to remove: nobody asked');
    core.assertScriptDone();
  });

  it('a skill whose files link out of it is refused (its SKILL.md, or any file: the runtime reads them unsandboxed); links inside it are kept', async () => {
    const secret = join(core.home, '.config', 'secret.txt');
    await mkdir(join(core.home, '.config'), { recursive: true });
    await writeFile(secret, 'SECRETMARK-271 the first line a SKILL.md link would show\n');
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const skillMd = '---\nname: NAME\ndescription: The NAME skill\n---\n\nBody.\n';
    const repoOf = async (name: string, files: Record<string, string>, links: Record<string, string>): Promise<string> => {
      const repo = join(core.root, name);
      for (const [path, text] of Object.entries(files)) {
        await mkdir(join(repo, path, '..'), { recursive: true });
        await writeFile(join(repo, path), text.replace(/NAME/g, name));
      }
      for (const [path, target] of Object.entries(links)) {
        await mkdir(join(repo, path, '..'), { recursive: true });
        await symlink(target, join(repo, path));
      }
      await git('git', ['init', '-q', repo], { env });
      await git('git', ['-C', repo, 'add', '.'], { env });
      await git('git', ['-C', repo, 'commit', '-q', '-m', 'skill'], { env });
      return repo;
    };
    const linkedMd = await repoOf('linked-md', {}, { 'SKILL.md': secret });
    const linkedFile = await repoOf(
      'linked-file',
      { 'SKILL.md': skillMd },
      { 'notes/env.md': '/proc/self/environ', 'notes/key.md': relative(join(core.root, 'linked-file', 'notes'), secret) },
    );
    const inward = await repoOf('inward', { 'SKILL.md': skillMd, 'docs/usage.md': 'How to use it.\n' }, { 'guide.md': 'docs/usage.md' });
    core.broker.answer = 'once';

    assert.match(
      await turn('install the linked one', [{ name: 'skill_install', arguments: { source: linkedMd } }]),
      /Not installed: SKILL\.md is a link or not a regular file\. A skill holds its own files only/,
    );
    assert.match(
      await turn('install the other one', [{ name: 'skill_install', arguments: { source: linkedFile } }]),
      /Not installed: notes\/env\.md is a link to \/proc\/self\/environ, outside the skill\./,
    );
    assert.match(await turn('which skills now?', [{ name: 'list_skills', arguments: {} }]), /^No skills installed/);
    assert.match(await turn('install the good one', [{ name: 'skill_install', arguments: { source: inward } }]), /Installed 'inward' \(The inward skill\)/);
    const installed = join(core.storageDir, 'skills', 'inward');
    assert.equal(await readFile(join(installed, 'guide.md'), 'utf8'), 'How to use it.\n', 'a link inside the skill still leads to its file');
    assert.equal(await readlink(join(installed, 'guide.md')), 'docs/usage.md');
    assert.deepEqual(offeredSkills(await plain('after the good skill')), ['inward']);
    const seen = core.server.chatRequests().filter((r) => JSON.stringify(r.body).includes('SECRETMARK'));
    assert.equal(seen.length, 0, 'nothing a link named reached the model');
    core.assertScriptDone();
  });

  it('a pack of skills is installed whole or not at all: one refused name, or two names that are one folder, install none; a subpath that climbs out is refused before anyone is asked', async () => {
    const skill = async (dir: string, front: string) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'SKILL.md'), `---\n${front}\n---\n\n# body\n`);
    };
    const installed = async () => (await readdir(core.skills.dir).catch(() => [] as string[])).filter((n) => !n.startsWith('.'));
    core.broker.answer = 'once';
    const bad = join(core.root, 'pack-bad');
    await skill(join(bad, 'a-good'), 'name: good-one\ndescription: fine');
    await skill(join(bad, 'b-bad'), 'name: Bad Name!\ndescription: refused');
    assert.match(await turn('install the pack', [{ name: 'skill_install', arguments: { source: bad } }]), /^Invalid skill name 'Bad Name!'/);
    assert.deepEqual(await installed(), [], 'told it failed, and nothing of it is installed (good-one was)');
    const twice = join(core.root, 'pack-twice');
    await skill(join(twice, 'one'), 'name: Helper\ndescription: FIRST');
    await skill(join(twice, 'two'), 'name: helper\ndescription: SECOND');
    assert.match(await turn('install the other pack', [{ name: 'skill_install', arguments: { source: twice } }]), /holds two skills named 'helper'/);
    assert.deepEqual(await installed(), [], "one of them is not installed over the other ('helper' twice, one folder)");
    const asked = core.broker.asked.length;
    assert.match(
      await turn('install from above', [{ name: 'skill_install', arguments: { source: bad, subpath: '../../' } }]),
      /subpath '..\/..\/' must stay inside the repository/,
    );
    assert.equal(core.broker.asked.length, asked, 'nobody was asked about it');
  });

  it('two installs of one skill at once (two tool calls of one reply, the Skills view beside the chat) leave it whole: one of the two, every file of it', async () => {
    const make = async (dir: string, tag: string) => {
      await mkdir(join(dir, 'data'), { recursive: true });
      await writeFile(join(dir, 'SKILL.md'), `---\nname: pdf\ndescription: ${tag}\n---\n\n# body\n`);
      for (let i = 0; i < 300; i++) await writeFile(join(dir, 'data', `f${i}.txt`), `${tag} ${i}\n`);
    };
    await make(join(core.root, 'pdf-a'), 'FIRST');
    await make(join(core.root, 'pdf-b'), 'SECOND');
    const results = await Promise.all([core.skills.install(join(core.root, 'pdf-a')), core.skills.install(join(core.root, 'pdf-b'))]);
    assert.deepEqual(
      results.map((r) => r.map((s) => [s.name, s.description])),
      [[['pdf', 'FIRST']], [['pdf', 'SECOND']]],
    );
    // Whichever copy landed last: whole, every file of that one copy.
    const listed = await core.skills.list();
    assert.equal(listed.length, 1);
    const tag = listed[0]!.description;
    assert.ok(tag === 'FIRST' || tag === 'SECOND', tag);
    const files = await readdir(join(core.skills.dir, 'pdf', 'data'));
    assert.equal(files.length, 300);
    for (const f of files) assert.match(await readFile(join(core.skills.dir, 'pdf', 'data', f), 'utf8'), new RegExp(`^${tag} `));
    assert.deepEqual(
      (await readdir(core.skills.dir)).filter((n) => n.startsWith('.')),
      [],
      'no staging folder left',
    );
    await Promise.all([core.skills.remove('pdf'), assert.rejects(core.skills.remove('pdf'), /No installed skill 'pdf'/)]);
    assert.deepEqual(await core.skills.list(), []);
  });

  it('an install that would replace a skill of the same name asks first (the Skills view); declined, the installed one stays as it is', async () => {
    const make = async (dir: string, tag: string) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'SKILL.md'), `---\nname: pdf\ndescription: ${tag}\n---\n\n# body\n`);
    };
    await make(join(core.root, 'pdf-a'), 'FIRST');
    await make(join(core.root, 'pdf-b'), 'SECOND');
    const asked: string[][] = [];
    const install = (dir: string, answer: boolean) =>
      core.skills.install(join(core.root, dir), {
        confirmReplace: async (names) => {
          asked.push(names);
          return answer;
        },
      });
    assert.deepEqual(
      (await install('pdf-a', false)).map((s) => [s.name, s.replaced]),
      [['pdf', undefined]],
    );
    assert.deepEqual(asked, [], 'nothing to replace: nobody asked');
    // The user's edit of the installed skill survives a declined replace.
    await writeFile(join(core.skills.dir, 'pdf', 'NOTES.md'), 'mine\n');
    assert.deepEqual(await install('pdf-b', false), []);
    assert.deepEqual(asked, [['pdf']]);
    assert.deepEqual(
      (await core.skills.list()).map((s) => s.description),
      ['FIRST'],
    );
    assert.equal(await readFile(join(core.skills.dir, 'pdf', 'NOTES.md'), 'utf8'), 'mine\n');
    assert.deepEqual(
      (await install('pdf-b', true)).map((s) => [s.name, s.replaced]),
      [['pdf', true]],
    );
    assert.deepEqual(
      (await core.skills.list()).map((s) => s.description),
      ['SECOND'],
    );
  });

  it('skill_search: installed skills, and a clear word when no index is configured; bad sources are refused', async () => {
    assert.match(
      await turn('find a pdf skill', [{ name: 'skill_search', arguments: { query: 'pdf' } }]),
      /No installed skill matches "pdf"[\s\S]*No skill index is configured \(setting baton\.skills\.indexUrl\)/,
    );
    assert.match(
      await turn('install from an option', [{ name: 'skill_install', arguments: { source: '--upload-pack=touch /tmp/x' } }]),
      /neither a git URL .* nor an absolute folder path/,
    );
    assert.match(await turn('install from ext', [{ name: 'learn_skill', arguments: { source: 'ext::sh -c touch% /tmp/pwned' } }]), /neither a git URL/);
    assert.deepEqual(core.broker.asked, [], 'a source Baton would refuse is not put to the user');
    core.assertScriptDone();
  });

  it('"turn on auto routing" flips the setting through the host and the header; switch_model changes the next request\'s model', async () => {
    const posted: HostMessage[] = [];
    core.chat.onDidPost((m) => posted.push(m));
    assert.equal(core.chat.state().routingAuto, false);
    assert.match(await turn('turn on auto routing', [{ name: 'toggle_auto', arguments: { enabled: true } }]), /Auto routing is on: fast claude-haiku-4\.5/);
    assert.deepEqual(hostCalls, ['auto true']);
    assert.equal(core.chat.state().routingAuto, true, 'the header state follows');
    assert.ok(
      posted.some((m) => m.type === 'state' && m.state.routingAuto),
      'the panel was sent the new header state',
    );

    // With routing on, the next message is classified (scripted) before it is answered: one of 20 characters or more (a
    // shorter one is a follow-up that keeps the tier, unclassified).
    core.server.on({ systemIncludes: 'You label messages for model routing', name: 'classifier' }, { text: 'standard' });
    assert.match(await turn('please turn auto routing off again', [{ name: 'toggle_auto', arguments: { enabled: false } }]), /Auto routing is off/);
    assert.equal(core.settings.routing.auto, false);

    assert.match(
      await turn('which models?', [{ name: 'list_models', arguments: {} }]),
      /- claude-sonnet-4\.5 \(answering now\) \(configured\)[\s\S]*- claude-opus-4\.6/,
    );
    assert.match(await turn('use a bogus model', [{ name: 'switch_model', arguments: { model_id: 'gpt-9' } }]), /Unknown model 'gpt-9'\. Available: /);
    assert.match(await turn('use the premium model', [{ name: 'switch_model', arguments: { model_id: 'claude-opus-4.6' } }]), /Switched to claude-opus-4\.6/);
    assert.equal(core.chat.state().model === 'claude-opus-4.6' || core.settings.routing.model === 'claude-opus-4.6', true);
    await plain('and now?');
    assert.equal(core.server.chatRequests().at(-1)!.model, 'claude-opus-4.6', 'the next request runs on the new model');
    assert.deepEqual(hostCalls, ['auto true', 'auto false', 'model claude-opus-4.6']);
    // Usage per day: every orchestrator turn counted, shown in the header's tooltip.
    assert.ok(core.usage.total('orchestrator').requests >= 6);
    assert.match(
      core.chat.state().usageToday ?? '',
      /^today: [\d.]+k? in \/ [\d.]+k? out tokens( · [\d.]+ premium requests?)? · \d+ requests\nthis conversation: .* · \d+ turns\n/,
    );
    core.assertScriptDone();
  });

  it('restart starts a new session with the recent turns as recovery context, never the saved one resumed', async () => {
    const before = await plain('remember the codeword PLUM-42');
    const first = core.store.getState('orchestrator_session_id');
    assert.equal(before.sessionId, first);
    assert.match(await turn('restart please', [{ name: 'restart', arguments: {} }]), /Restarting after this reply/);
    const after = await plain('what was the codeword?');
    assert.notEqual(after.sessionId, first, 'a new session answers after the restart');
    assert.equal(core.store.getState('orchestrator_session_id'), after.sessionId);
    // The new session knows what was said: the recovery context rides on the first prompt.
    assert.match(
      after.lastUserText ?? '',
      /\[System: Session recovered\] Your previous session was lost \(restart requested from the chat\)[\s\S]*PLUM-42[\s\S]*what was the codeword\?/,
    );
    const ready = core.events.filter((e) => e.type === 'session.ready').map((e) => (e.type === 'session.ready' ? e.how : ''));
    assert.deepEqual(ready, ['created', 'drifted']);
    core.assertScriptDone();
  });

  it('restart while a worker runs is refused, naming it (the runtime it would stop holds the worker); nothing restarts', async () => {
    const project = join(core.home, 'dev', 'busy');
    await mkdir(project, { recursive: true });
    core.server.on({ systemIncludes: "You are 'busy'", name: 'the busy worker' }, { text: 'busy done', delayMs: 4000 });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'busy' finished", name: 'its result' }, { text: 'noted' });
    await core.pool.create({ name: 'busy', workingDir: project, prompt: 'TASK-busy' });
    await plain('before the restart');
    const first = core.store.getState('orchestrator_session_id');
    assert.equal(
      await turn('restart now', [{ name: 'restart', arguments: {} }]),
      "Not restarted: worker 'busy' is running, and a restart of the runtime would stop it. Wait for it to finish, or ask the user whether to stop it (kill_session) first.",
    );
    await waitFor('the worker to finish its task', () => core.pool.list().find((w) => w.name === 'busy')?.state === 'done', 30_000);
    await waitFor('its result answered', () => core.server.chatRequests().some((r) => r.lastUserText?.includes("Worker 'busy' finished")));
    assert.equal((await plain('after the refusal')).sessionId, first, 'the same session answers: nothing was restarted');
    core.assertScriptDone();
  });

  it('auto routing turned on in the settings themselves (settings.json): the next turn\u2019s session is told, as after a switch from the palette', async () => {
    await plain('hello before');
    // What src/vscode/services.ts does when baton.routing changes in the settings.
    core.settings.routing.auto = true;
    core.control.settingsChanged('the routing');
    core.server.on({ systemIncludes: 'You label messages for model routing', name: 'classifier' }, { text: 'standard' });
    const routed = await plain('after the settings changed');
    assert.match(routed.systemText, /Automatic routing is ON: Baton picks a tier per message/);
    core.assertScriptDone();
  });

  it("Switch Model and Toggle Auto from the palette rebuild what the session was told, as the chat's tools do", async () => {
    await plain('hello');
    const first = core.store.getState('orchestrator_session_id');
    // What the palette's Toggle Auto Routing calls (commands.ts): the same path as toggle_auto.
    await core.control.setRoutingAuto(true);
    assert.deepEqual(hostCalls, ['auto true']);
    assert.equal(core.chat.state().routingAuto, true);
    core.server.on({ systemIncludes: 'You label messages for model routing', name: 'classifier' }, { text: 'standard' });
    const routed = await plain('and what happens with routing on?');
    assert.match(routed.systemText, /Automatic routing is ON: Baton picks a tier per message/, "the session's instructions were rebuilt");
    assert.equal(routed.model, core.settings.routing.tiers.standard, 'routed: the classifier picked the standard tier');

    // What the palette's Switch Model calls: auto routing goes off, the next message runs on the model in a fresh session.
    await core.control.switchModel('claude-opus-4.6');
    assert.deepEqual(hostCalls, ['auto true', 'model claude-opus-4.6', 'auto false']);
    assert.equal(core.chat.state().routingAuto, false);
    const switched = await plain('and now?');
    assert.equal(switched.model, 'claude-opus-4.6');
    assert.notEqual(switched.sessionId, first, 'a fresh session, as after switch_model');
    assert.match(switched.systemText, /Automatic routing is OFF/);
    assert.match(switched.lastUserText ?? '', /\[System: Session recovered\][\s\S]*hello/);
    core.assertScriptDone();
  });
});
