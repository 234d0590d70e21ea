// A worker's report the session was given is part of the conversation the model knows: a compaction folds it into the
// summary or keeps it verbatim, labelled as a worker report (text for the model), like a recovered session's context.
// A report set aside unsent ('cancelled': it comes again from the inbox) is not.
import * as assert from 'node:assert/strict';
import { settledMessages } from '../../src/core/orchestrator/conversationCompactor';
import type { LogEntry } from '../../src/core/store/types';
import { reply } from '../support/inMemoryAgentSessions';
import { eachUnitCore, type UnitCore } from '../support/inMemoryCore';

const REPORT = "[Background task completed] Worker 'w' finished:\n\nROOT-CAUSE: race in token refresh, fixed in auth.ts:42";

describe('compaction and worker reports (in-memory runtime)', () => {
  let f: UnitCore;
  eachUnitCore((core) => (f = core));

  /** A question, a worker's report and the answer to it, then a follow-up: six settled messages. */
  async function withReport(): Promise<void> {
    const o = f.core.orchestrator;
    f.sessions.script('orchestrator', reply('I will start a worker'), reply('The worker is done.'), reply('ok'));
    await o.enqueue('fix the flaky login test', { channel: 'panel' }).done;
    await o.enqueue(REPORT, { channel: 'background', worker: 'w' }).done;
    await o.enqueue('thanks, anything else?', { channel: 'panel' }).done;
  }

  it('folds an older report into the summary, labelled as one', async () => {
    await withReport();
    f.sessions.script('summarizer', reply('SUMMARY'));
    const compaction = await f.core.orchestrator.summarizeNow(2);
    assert.deepEqual([compaction?.replacesFromIndex, compaction?.replacesToIndex, compaction?.kept], [0, 3, 2], 'the report counts as a message');
    const request = f.sessions.runs.find((r) => r.role === 'summarizer')?.prompt ?? '';
    assert.ok(request.includes(`Worker report [background:w]: ${REPORT}`), request);
    assert.ok(request.indexOf('Assistant: I will start a worker') < request.indexOf('Worker report'), 'in the order the session got them');
  });

  it('keeps a recent report verbatim in what the next session starts from', async () => {
    await withReport();
    f.sessions.script('summarizer', reply('SUMMARY'));
    f.sessions.script('orchestrator', reply('it was a race'));
    await f.core.orchestrator.summarizeNow(4);
    await f.core.orchestrator.enqueue('what was the root cause again?', { channel: 'panel' }).done;
    const first = f.sessions.orchestratorPrompts.at(-1) ?? '';
    assert.match(first, /^\[System: conversation compacted\]/);
    assert.ok(first.includes(`Worker report [background:w]: ${REPORT}\nAssistant: The worker is done.`), first);
    assert.ok(!f.sessions.runs.find((r) => r.role === 'summarizer')?.prompt.includes('ROOT-CAUSE'), 'kept, so not summarized');
  });

  it('leaves out a report the session never got, and rows that are no report', () => {
    const row = (id: number, role: LogEntry['role'], source: string, status: LogEntry['status']): LogEntry =>
      ({ id, conversation: 'main', role, content: `m${id}`, source, status, meta: null, ts: '' }) as LogEntry;
    const log = [
      row(1, 'user', 'panel', 'complete'),
      row(2, 'system', 'background:w', 'complete'),
      row(3, 'system', 'background:v', 'cancelled'),
      row(4, 'system', 'background:u', 'pending'),
      row(5, 'system', 'notice', 'complete'),
      row(6, 'assistant', 'panel', 'complete'),
    ];
    assert.deepEqual(
      settledMessages(log).map((e) => e.id),
      [1, 2, 6],
    );
  });
});
