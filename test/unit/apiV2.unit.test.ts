// The pure parts of the API's version 2: the summarize policy's parsing and plan, checkpoints as the API shows them,
// and the route's source.
import * as assert from 'node:assert/strict';
import { toCheckpoint } from '../../src/core/api/checkpointView';
import { routeSource } from '../../src/core/api/lifecycleEvents';
import {
  compactedContext,
  parseSummarizePolicy,
  planCompaction,
  settledMessages,
  summarize,
  SUMMARY_CHARS,
} from '../../src/core/orchestrator/conversationCompactor';
import { runtimeCompaction, runtimeCompactionUsage } from '../../src/core/orchestrator/runtimeCompaction';
import { historyContext, memoryContext } from '../../src/core/orchestrator/turnContext';
import type { LogEntry } from '../../src/core/store/types';
import { InMemoryAgentSessions, reply } from '../support/inMemoryAgentSessions';

const row = (id: number, role: LogEntry['role'], content: string, status: LogEntry['status'] = 'complete'): LogEntry =>
  ({ id, conversation: 'main', role, content, source: 'api', status, meta: null, ts: '' }) as LogEntry;

describe('API version 2 helpers', () => {
  it('reads a summarize policy: whole numbers only, anything else falls back', () => {
    assert.deepEqual(parseSummarizePolicy({ afterTurns: 20, keep: 8 }), { afterTurns: 20, keep: 8 });
    assert.deepEqual(parseSummarizePolicy({ afterTurns: -1, keep: 0.5 }), { afterTurns: 0, keep: 8 });
    assert.deepEqual(parseSummarizePolicy(undefined, { afterTurns: 3, keep: 2 }), { afterTurns: 3, keep: 2 });
  });

  it('keeps a summary within SUMMARY_CHARS, whatever the model wrote, and deletes its one-off session', async () => {
    const sessions = new InMemoryAgentSessions().script('summarizer', reply('  short one  '), reply('x'.repeat(SUMMARY_CHARS * 25)));
    assert.equal(await summarize(sessions, 'm', 'Summarize', 1000), 'short one');
    const long = await summarize(sessions, 'm', 'Summarize', 1000);
    assert.equal(long.length, SUMMARY_CHARS);
    assert.ok(long.endsWith('x…'), 'says it was cut');
    assert.deepEqual(await sessions.ownSessions(), [], 'each one-off session is deleted');
    sessions.assertScriptDone();
  });

  it("reads the runtime's own compaction: what it folded, and its model call's tokens (no premium request: no cost is reported)", () => {
    const data = { success: true, summaryContent: 'S', messagesRemoved: 4, preCompactionMessagesLength: 6, tokensRemoved: 900 };
    assert.deepEqual(runtimeCompaction(data), { summary: 'S', replacesFromIndex: 0, replacesToIndex: 3, kept: 2, tokensFreed: 900, how: 'runtime' });
    assert.deepEqual(runtimeCompactionUsage({ ...data, compactionTokensUsed: { inputTokens: 5000, outputTokens: 40 } }), {
      inputTokens: 5000,
      outputTokens: 40,
      premiumRequests: 0,
      requests: 0,
    });
    assert.equal(runtimeCompactionUsage(data), undefined);
    assert.equal(runtimeCompactionUsage({ ...data, compactionTokensUsed: {} }), undefined, "warmUp's empty compaction made no call");
  });

  it('plans a compaction: folds what came after the last one and before the newest `keep`', () => {
    const log = [row(1, 'user', 'a'), row(2, 'assistant', 'b'), row(3, 'user', 'c'), row(4, 'assistant', 'd'), row(5, 'user', 'e', 'pending')];
    const messages = settledMessages(log);
    assert.equal(messages.length, 4, 'the pending message is not part of it');
    const plan = planCompaction(messages, 2, undefined)!;
    assert.deepEqual([plan.older.map((m) => m.id), plan.kept.map((m) => m.id), plan.from, plan.to], [[1, 2], [3, 4], 0, 1]);
    assert.equal(planCompaction(messages, 2, { summary: 's', atTurn: 1, throughLogId: 2 }), undefined, 'nothing new to fold');
    assert.equal(planCompaction(messages, 4, undefined), undefined);
    assert.match(compactedContext('SUM', plan.kept), /SUM[\s\S]*User: c\nAssistant: d/);
  });

  it('shows a checkpoint with its route split (a model id may hold a colon) and UTC time', () => {
    const c = toCheckpoint({
      id: 1,
      conversation: 'main',
      turn_index: 3,
      fingerprint: 'f'.repeat(64),
      route: 'premium:vendor:model-x:override',
      status: 'complete',
      input_tokens: 10,
      output_tokens: null,
      ts: '2026-11-26 15:00:00',
    });
    assert.deepEqual(c, {
      conversation: 'main',
      turnIndex: 3,
      signature: 'f'.repeat(64),
      route: { tier: 'premium', model: 'vendor:model-x', reason: 'override' },
      status: 'complete',
      inputTokens: 10,
      at: '2026-11-26T15:00:00Z',
    });
  });

  it('names who decided a route', () => {
    assert.deepEqual((['override', 'classifier', 'cooldown', 'follow-up', 'background', 'manual', 'disabled'] as const).map(routeSource), [
      'keyword',
      'classifier',
      'classifier',
      'fixed',
      'fixed',
      'fixed',
      'fixed',
    ]);
  });

  it('bounds what a turn adds: memories cut, caller history to the newest 20', () => {
    const long = 'x'.repeat(1000);
    const text = memoryContext([{ id: 1, category: 'fact', content: long, source: 'user', created_at: '', last_accessed: '' }]);
    assert.ok(text.length < 500);
    const h = historyContext(Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` })));
    assert.equal(h.count, 20);
    assert.match(h.text, /User: m10\n/);
    assert.doesNotMatch(h.text, /m9\n/);
  });
});
