// Long-term memory through the real runtime: the model calls remember / recall / forget, and what
// it saved shows up in the next session's system message.
import * as assert from 'node:assert/strict';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import { RELEVANT_MEMORIES } from '../../src/core/orchestrator/turnContext';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { afterEachCore } from '../support/afterEachCore';

describe('long-term memory (real runtime, scripted model)', function () {
  this.timeout(60_000);
  let core: CoreFixture;

  beforeEach(async () => {
    core = await startCore();
  });
  afterEachCore(() => core);

  function toolResult(name: string): string {
    const req = core.server
      .chatRequests()
      .find((r) => r.messages.at(-1)?.role === 'tool' && r.messages.some((m) => m.tool_calls?.some((c) => c.function.name === name)));
    return String(req?.messages.at(-1)?.content ?? '');
  }

  it('puts the memories that best match a message into that turn (by full-text rank, bounded), and names them in an event', async () => {
    const port = core.store.addMemory('fact', 'The staging database listens on port 5433', 'user').memory;
    core.store.addMemory('preference', 'Prefers tabs over spaces', 'user');
    core.store.addMemory('project', 'The staging deploy runs from the release branch', 'user');
    core.server.on({ lastUserIncludes: 'which port does the staging database use' }, { text: 'Port 5433.' });
    const windows: Array<Extract<OrchestratorEvent, { type: 'history.windowed' }>['window']> = [];
    const off = core.orchestrator.onEvent((e) => e.type === 'history.windowed' && windows.push(e.window));
    await core.orchestrator.enqueue('which port does the staging database use?', { channel: 'panel' }).done;
    off();
    const sent = core.server.chatRequests().at(-1)!.lastUserText!;
    assert.match(
      sent,
      /\[via panel\] which port does the staging database use\?\n\n\[Memories that may be relevant[^\n]*\]\n- \(fact\) The staging database listens on port 5433/,
    );
    assert.ok(!sent.includes('Prefers tabs over spaces'), 'a memory that does not match is not in the turn');
    assert.equal(windows.length, 1);
    assert.deepEqual(windows[0]!.memories[0], { id: port.id, category: 'fact' }, 'the best match first');
    assert.ok(!windows[0]!.memories.some((m) => m.category === 'preference'));
    // The static summary stays in the system message, all memories included.
    assert.match(core.server.chatRequests().at(-1)!.systemText, /Prefers tabs over spaces/);
    // At most RELEVANT_MEMORIES ride on one turn.
    for (let i = 0; i < 8; i++) core.store.addMemory('fact', `Staging note number ${i} about the staging cluster`, 'user');
    core.server.on({ lastUserIncludes: 'tell me about staging' }, { text: 'Staging is fine.' });
    await core.orchestrator.enqueue('tell me about staging', { channel: 'panel' }).done;
    const lines = core.server
      .chatRequests()
      .at(-1)!
      .lastUserText!.split('\n')
      .filter((l) => l.startsWith('- ('));
    assert.equal(lines.length, RELEVANT_MEMORIES);
  });

  it('remember, forget, remember again in one turn: the memory is there at the end, as the model was told (each call runs; none is answered from an earlier one)', async () => {
    const mem = { category: 'preference', content: 'Prefers tabs over spaces' };
    const prompt = 'remember, forget, remember';
    core.server.on({ lastUserIncludes: prompt, afterToolResult: false, name: 'remember' }, { toolCalls: [{ name: 'remember', arguments: mem }] });
    core.server.on(
      { lastUserIncludes: prompt, afterToolResult: true, name: 'forget, remember again, answer' },
      { toolCalls: [{ name: 'forget', arguments: { memory_id: 1 } }] },
      { toolCalls: [{ name: 'remember', arguments: mem }] },
      { text: 'Done.' },
    );
    await core.orchestrator.enqueue(prompt, { channel: 'panel' }).done;
    const results = core.server
      .chatRequests()
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    assert.equal(results.length, 3);
    assert.match(results[1]!, /^Forgot #1/);
    assert.match(results[2]!, /^Remembered \(#2, preference\)/);
    assert.deepEqual(
      core.store.listMemories().map((m) => m.content),
      ['Prefers tabs over spaces'],
    );
  });

  it('remembers, recalls and forgets through the tools, and the summary reaches the next session', async () => {
    core.server.on({ afterToolResult: true }, { text: 'Saved.' });
    core.server.on(
      { lastUserIncludes: 'I prefer tabs' },
      { toolCalls: [{ name: 'remember', arguments: { category: 'preference', content: 'Prefers tabs over spaces', source: 'user' } }] },
    );
    const saved = await core.orchestrator.enqueue('I prefer tabs over spaces, remember that', { channel: 'panel' }).done;
    assert.equal(saved.content, 'Saved.');
    assert.match(toolResult('remember'), /Remembered \(#\d+, preference\): "Prefers tabs over spaces"/);
    assert.equal(core.store.listMemories().length, 1);
    const id = core.store.listMemories()[0].id;

    core.server.on({ afterToolResult: true }, { text: 'You prefer tabs.' });
    core.server.on({ lastUserIncludes: 'what do I prefer' }, { toolCalls: [{ name: 'recall', arguments: { keyword: 'tabs' } }] });
    await core.orchestrator.enqueue('what do I prefer?', { channel: 'panel' }).done;
    assert.match(toolResult('recall'), /Prefers tabs over spaces/);

    // A bad argument from the model is answered with a clear error, and the turn goes on.
    core.server.on({ afterToolResult: true }, { text: 'Sorry, let me fix that.' });
    core.server.on(
      { lastUserIncludes: 'bad category' },
      { toolCalls: [{ name: 'remember', arguments: { category: 'nonsense', content: 'x', source: 'user' } }] },
    );
    const bad = await core.orchestrator.enqueue('bad category test', { channel: 'panel' }).done;
    assert.equal(bad.status, 'complete');
    const lastTool = core.server.chatRequests().at(-1)!.messages.at(-1);
    assert.equal(lastTool?.role, 'tool');
    assert.match(String(lastTool?.content), /category/i);
    assert.equal(core.store.listMemories().length, 1, 'nothing saved from a bad call');

    // The next session (after a restart with a new fingerprint-compatible session) carries the memory.
    core.store.deleteState('orchestrator_session_id');
    await core.restart();
    core.server.on({ lastUserIncludes: '[via panel] hello again' }, { text: 'Hello!' });
    await core.orchestrator.enqueue('hello again', { channel: 'panel' }).done;
    const system = core.server.chatRequests().at(-1)!.systemText;
    assert.match(system, /## Long-Term Memory/);
    assert.match(system, new RegExp(`\\*\\*preference\\*\\*:\\s*\\n- \\[#${id}\\] Prefers tabs over spaces`));

    core.server.on({ afterToolResult: true }, { text: 'Forgotten.' });
    core.server.on({ lastUserIncludes: 'forget it' }, { toolCalls: [{ name: 'forget', arguments: { memory_id: id } }] });
    await core.orchestrator.enqueue('forget it', { channel: 'panel' }).done;
    assert.match(toolResult('forget'), new RegExp(`Forgot #${id}`));
    assert.equal(core.store.listMemories().length, 0);
  });
});
