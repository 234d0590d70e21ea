// createBatonCore, the one composition root, with only the runtime in memory: what it wires
// (tools, reply channels, the session kept across a reload) and what it must not do (start the
// runtime before the first message).
import * as assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import type { SessionSpec } from '../../src/core/copilot/agentSessions';
import { reply, sequence, tool } from '../support/inMemoryAgentSessions';
import { eachUnitCore, nextEvent, until, type UnitCore } from '../support/inMemoryCore';

describe('createBatonCore (in-memory runtime)', () => {
  let f: UnitCore;

  eachUnitCore((core) => (f = core));

  function orchestratorSpec(i = 0): Extract<SessionSpec, { role: 'orchestrator' }> {
    const spec = f.sessions.created.filter((s) => s.role === 'orchestrator')[i];
    assert.ok(spec?.role === 'orchestrator', 'an orchestrator session was created');
    return spec;
  }

  it('does not start the runtime: the first message does', async () => {
    assert.equal(f.sessions.isStarted, false);
    assert.deepEqual(f.sessions.created, []);
    f.sessions.script('orchestrator', reply('hello'));
    await f.core.orchestrator.enqueue('hi', { channel: 'panel' }).done;
    assert.equal(f.sessions.isStarted, true);
  });

  it('gives the orchestrator all of Baton’s tools (memory, workers and their changes, squads, wiki, skills, control), and tells it the workspace folders and its own installation', async () => {
    f.sessions.script('orchestrator', reply('ok'));
    await f.core.orchestrator.enqueue('hi', { channel: 'panel' }).done;
    const spec = orchestratorSpec();
    assert.deepEqual(spec.tools.map((t) => t.name).sort(), [
      'apply_worker_changes',
      'attach_machine_session',
      'check_session_status',
      'create_worker_session',
      'discard_worker_changes',
      'forget',
      'keep_worker_changes_as_branch',
      'kill_session',
      'learn_skill',
      'list_machine_sessions',
      'list_models',
      'list_sessions',
      'list_skills',
      'recall',
      'remember',
      'resolve_worker_conflicts',
      'restart',
      'review_worker_changes',
      'send_to_worker',
      'skill_install',
      'skill_list',
      'skill_remove',
      'skill_search',
      'squad_add_agent',
      'squad_agents',
      'squad_analyze',
      'squad_create',
      'squad_delegate',
      'squad_delete',
      'squad_log_decision',
      'squad_recall',
      'squad_remove_agent',
      'squad_status',
      'switch_model',
      'toggle_auto',
      'undo_worker_apply',
      'uninstall_skill',
      'wiki_delete',
      'wiki_list',
      'wiki_read',
      'wiki_search',
      'wiki_write',
    ]);
    assert.ok(spec.systemMessage.includes(`the user's open workspace folders: ${f.workDir}`));
    assert.match(spec.systemMessage, /## Self-edit protection\nNever edit, delete or run commands against Baton's own installation \(.*install\)/);
  });

  for (const channel of ['panel', 'command'] as const) {
    it(`a worker started from a ${channel} turn reports back to the ${channel}, in its conversation`, async () => {
      f.sessions.script('orchestrator', sequence(tool('create_worker_session', { name: 'w', working_dir: f.workDir, initial_prompt: 'go' }), reply('started')));
      f.sessions.script('worker', reply('worked'));
      f.sessions.scriptWhen('orchestrator', (p) => p.startsWith("[Background task completed] Worker 'w'"), reply('summary'));
      const summary = nextEvent(f.core, 'turn.completed', (e) => e.origin.channel === 'background');
      await f.core.orchestrator.enqueue('start w', { channel }).done;
      const done = await summary;
      assert.deepEqual(done.origin, { channel: 'background', worker: 'w', replyTo: channel, conversation: 'main' });
    });
  }

  it('a reload resumes the same orchestrator session, so the conversation goes on without recovery context', async () => {
    f.sessions.script('orchestrator', reply('first answer'), reply('second answer'));
    await f.core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    await f.restart();
    await f.core.orchestrator.enqueue('second', { channel: 'panel' }).done;
    const [a, b] = f.sessions.runs;
    assert.equal(b?.sessionId, a?.sessionId);
    assert.deepEqual(f.sessions.resumed, [a?.sessionId]);
    assert.deepEqual(f.sessions.orchestratorPrompts, ['[via panel] first', '[via panel] second']);
  });

  it('a model change across a reload starts a new session whose FIRST prompt carries the recovery context', async () => {
    f.sessions.script('orchestrator', reply('first answer'), reply('second answer'));
    await f.core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    f.settings.routing.model = 'claude-haiku-4.5';
    await f.restart();
    await f.core.orchestrator.enqueue('second', { channel: 'panel' }).done;
    const [a, b] = f.sessions.runs;
    assert.notEqual(b?.sessionId, a?.sessionId, 'a drifted session is replaced, not resumed');
    const prompt = b?.prompt ?? '';
    assert.match(prompt, /^\[System: Session recovered\] Your previous session was lost \(Baton, its tools or the model changed since the last session\)\./);
    assert.ok(prompt.includes('[panel] User: first\n[panel] Baton: first answer'), prompt);
    assert.ok(prompt.endsWith('(End of recovery context. Answer only the message that follows.)\n\n[via panel] second'), prompt);
    assert.equal(f.sessions.runs.length, 2, 'the context rode on the prompt: no extra model call');
  });

  it('a runtime reset fails a running worker at once (not at its timeout) and the orchestrator hears it', async () => {
    f.sessions.script('worker', async (ctx) => {
      ctx.delta('busy');
      await ctx.hang();
    });
    f.sessions.scriptWhen('orchestrator', (p) => p.startsWith("[Background task completed] Worker 'w' failed"), reply('sorry'));
    await f.core.pool.create({ name: 'w', workingDir: f.workDir, prompt: 'long job' });
    await until(() => f.sessions.inFlight === 1, 'the worker to run');
    const reported = nextEvent(f.core, 'turn.completed', (e) => e.origin.channel === 'background');
    await f.sessions.reset('test: runtime died');
    await reported;
    const [prompt] = f.sessions.orchestratorPrompts;
    assert.match(prompt ?? '', /^\[Background task completed\] Worker 'w' failed: the Copilot runtime was restarted \(test: runtime died\)/);
    assert.equal(f.core.pool.status('w').state, 'failed');
  });

  it('closing the window finishes every step although one fails: the runtime stops, the last write is saved, no claim is left', async () => {
    let broken = true;
    const dirs = f.sessions.toolOutputDirs.bind(f.sessions);
    // A start-up chore that throws, as one did through a settings reader on a setting of the wrong type.
    f.sessions.toolOutputDirs = () => {
      if (broken) throw new TypeError("Cannot read properties of null (reading 'trim')");
      return dirs();
    };
    await f.restart();
    await new Promise((resolve) => setTimeout(resolve, 50));
    broken = false;
    f.sessions.script('orchestrator', reply('hello'));
    await f.core.orchestrator.enqueue('hi', { channel: 'panel' }).done;
    f.core.store.setState('last-write', 'written just before close');
    await f.core.dispose();
    assert.equal(f.sessions.isStarted, false, 'the runtime was stopped');
    assert.deepEqual(await readdir(join(f.storageDir, 'claims')).catch(() => []), [], 'no claim file is left');
    const store = await SqlJsStore.open({ dir: f.storageDir, pollIntervalMs: 0 });
    assert.equal(store.getState('last-write'), 'written just before close');
    await store.close();
    assert.ok(
      f.logger.lines.some((l) => l.startsWith('error') && l.includes("reading 'trim'")),
      'the failing step is logged',
    );
  });

  it('dispose is idempotent and leaves nothing running', async () => {
    await Promise.all([f.core.dispose(), f.core.dispose()]);
    assert.equal(f.sessions.inFlight, 0);
    assert.throws(() => f.core.orchestrator.enqueue('late', { channel: 'panel' }), /Baton was closed/);
  });
});
