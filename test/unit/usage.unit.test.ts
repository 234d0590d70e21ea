import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tokens, UsageTotals } from '../../src/core/control/usageTotals';
import { callUsage } from '../../src/core/copilot/callUsage';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { usageDay } from '../../src/core/store/sqlJsUsage';
import { conversationStateKey } from '../../src/core/store/types';
import { renderUsageHtml } from '../../src/vscode/usageHtml';
import { useTimeZone } from '../support/timeZone';
import { TOOL_CONVERSATION_PREFIX, TOOL_CONVERSATIONS_KEEP } from '../../src/core/store/bounds';
import { TOOL_CALLS_USAGE_KEY } from '../../src/core/orchestrator/usageConversation';
import { reply } from '../support/inMemoryAgentSessions';
import { eachUnitCore, type UnitCore } from '../support/inMemoryCore';

const call = (premium: number) => ({ inputTokens: 10, outputTokens: 1, premiumRequests: premium, requests: premium ? 1 : 0 });

describe('usage', () => {
  const setTimeZone = useTimeZone();
  let dir: string;
  let store: SqlJsStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-usage-'));
    store = await SqlJsStore.open({ dir, pollIntervalMs: 0 });
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('bills a call carrying a user request at its multiplier, and tool rounds (initiator "agent") not at all', () => {
    assert.deepEqual(callUsage({ inputTokens: 100, outputTokens: 10, cost: 3, initiator: 'user' }), {
      inputTokens: 100,
      outputTokens: 10,
      premiumRequests: 3,
      requests: 1,
    });
    assert.deepEqual(callUsage({ inputTokens: 200, outputTokens: 20, cost: 3, initiator: 'agent' }), {
      inputTokens: 200,
      outputTokens: 20,
      premiumRequests: 0,
      requests: 0,
    });
    assert.deepEqual(
      callUsage({ inputTokens: 1, cost: 0.33 }),
      { inputTokens: 1, outputTokens: 0, premiumRequests: 0.33, requests: 1 },
      'no initiator: user-initiated',
    );
    assert.deepEqual(callUsage({ cost: 1, initiator: 'sub-agent' }).premiumRequests, 0);
  });

  it('reports 30 days oldest first, totals by conversation, worker and squad, without counting a squad twice', () => {
    // 09:30 on May 1 where the test runs: the page shows a start in the user's time zone.
    const started = new Date(2026, 4, 1, 9, 30).toISOString();
    const usage = new UsageTotals(store, () => started);
    const today = usageDay();
    usage.turn({ inputTokens: 1000, outputTokens: 100, premiumRequests: 3 });
    store.usage.add(
      [
        { scope: 'worker', key: 'w1', ...call(1) },
        { scope: 'squad', key: 'shop', ...call(1) },
      ],
      today,
    );
    const report = usage.report(30);
    assert.equal(report.days.length, 30);
    assert.equal(report.days.at(-1)!.day, today);
    assert.deepEqual(report.total, { inputTokens: 1010, outputTokens: 101, premiumRequests: 4, requests: 2 });
    assert.deepEqual(
      report.conversations.map((c) => [c.key, c.requests]),
      [[started, 1]],
    );
    const html = renderUsageHtml(report, { cspSource: 'vscode-webview:', nonce: 'abc123' });
    // A strict CSP and no script at all; the chart's bar for today is the tallest.
    assert.match(html, /content="default-src 'none'; style-src 'nonce-abc123'; img-src vscode-webview:;"/);
    assert.doesNotMatch(html, /<script|style="|\son\w+=/i);
    assert.match(html, new RegExp(`<rect class="bar" data-day="${today}" x="\\d+" y="0" width="12" height="80">`));
    assert.match(html, /started May 1, 09:30</);

    // While the conversation is in the list under that key, the table names it by its title, as text.
    store.createConversation('c1');
    store.renameConversation('c1', '<b>Fix</b> the login');
    store.setState(conversationStateKey('usage_conversation', 'c1'), started);
    const named = renderUsageHtml(usage.report(30), { cspSource: 'vscode-webview:', nonce: 'abc123' });
    assert.match(named, /<th scope="row">&lt;b&gt;Fix&lt;\/b&gt; the login \(started May 1, 09:30\)<\/th>/);
  });

  it("adds up a day's rows in the store for the header and tooltips, other days and scopes left out", () => {
    const usage = new UsageTotals(store, () => 'conversation-1');
    const today = usageDay();
    usage.turn({ inputTokens: 1000, outputTokens: 100, premiumRequests: 1 });
    usage.turn({ inputTokens: 500, outputTokens: 50 });
    for (let i = 0; i < 50; i++) store.usage.add([{ scope: 'worker', key: `w${i}`, ...call(i % 2) }], today);
    store.usage.add([{ scope: 'worker', key: 'w0', ...call(5) }], '2026-01-02');
    assert.deepEqual(usage.total('orchestrator', 'conversation-1'), { inputTokens: 1500, outputTokens: 150, premiumRequests: 1, requests: 2 });
    assert.deepEqual(usage.total('worker'), { inputTokens: 500, outputTokens: 50, premiumRequests: 25, requests: 25 });
    assert.deepEqual(usage.total('worker', 'w1'), { inputTokens: 10, outputTokens: 1, premiumRequests: 1, requests: 1 });
    assert.deepEqual(usage.total('worker', 'w0', '2026-01-02'), { inputTokens: 10, outputTokens: 1, premiumRequests: 5, requests: 1 });
    assert.deepEqual(usage.total('squad'), { inputTokens: 0, outputTokens: 0, premiumRequests: 0, requests: 0 });
    assert.equal(
      usage.headerText(),
      'today: 2k in / 200 out tokens · 26 premium requests · 27 requests\nthis conversation: 1.5k in / 150 out tokens · 1 premium request · 2 turns\nworkers: 500 in / 50 out tokens · 25 premium requests · 25 requests\nBaton: Show Usage has the last 30 days',
    );
  });

  it("keeps the header up to date with every usage write: this window's, and another window's once loaded", async () => {
    const usage = new UsageTotals(store, () => 'conversation-1');
    assert.equal(usage.headerText(), 'no usage today');
    usage.turn({ inputTokens: 1000, outputTokens: 100, premiumRequests: 1 });
    assert.match(usage.headerText(), /^today: 1k in \/ 100 out tokens · 1 premium request · 1 request\n/);
    // Asked again with nothing written: the same text (the header is asked several times a turn).
    assert.equal(usage.headerText(), usage.headerText());
    // Another window on the same file adds a worker's request; this window loads its file.
    await store.flush();
    const other = await SqlJsStore.open({ dir, pollIntervalMs: 0 });
    try {
      other.usage.add([{ scope: 'worker', key: 'w1', ...call(2) }]);
      await other.flush();
    } finally {
      await other.close();
    }
    await store.flush();
    assert.match(usage.headerText(), /^today: 1k in \/ 101 out tokens · 3 premium requests · 2 requests\n.*\nworkers: 10 in \/ 1 out tokens/s);
  });

  it('adds this window’s own writes to the header as summing them afresh would read', () => {
    const usage = new UsageTotals(store, () => 'conversation-1');
    assert.equal(usage.headerText(), 'no usage today');
    usage.turn({ inputTokens: 1200, outputTokens: 30, premiumRequests: 0.33 });
    usage.turn({ inputTokens: 800, outputTokens: 20 }, 'conversation-2');
    usage.workerCall('w1', call(1));
    usage.turn({ inputTokens: 5, outputTokens: 5, premiumRequests: 1 });
    const added = usage.headerText();
    // Another UsageTotals on the same store sums everything from the database.
    assert.equal(added, new UsageTotals(store, () => 'conversation-1').headerText());
    assert.match(added, /this conversation: 1\.2k in \/ 35 out tokens · 1\.33 premium requests · 2 turns/);
    assert.match(added, /workers: /);
  });

  it("counts a squad's task once in the header's day total: as its worker's, not again as the squad's", () => {
    const usage = new UsageTotals(store, () => 'conversation-1');
    assert.equal(usage.headerText(), 'no usage today');
    usage.turn({ inputTokens: 1000, outputTokens: 100, premiumRequests: 1 });
    usage.workerCall('w1', call(1), 'shop');
    usage.workerCall('w2', call(1));
    const expected = /^today: 1k in \/ 102 out tokens · 3 premium requests · 3 requests\n/;
    assert.match(usage.headerText(), expected, 'as this window added it up');
    assert.match(new UsageTotals(store, () => 'conversation-1').headerText(), expected, 'as summed from the store');
  });

  it("counts a day from the user's midnight, not UTC's", () => {
    // In California, where UTC's next day starts in the afternoon.
    setTimeZone('America/Los_Angeles');
    assert.equal(usageDay(new Date(2026, 0, 1, 0, 5)), '2026-01-01');
    assert.equal(usageDay(new Date(2026, 0, 1, 23, 55)), '2026-01-01');
    const days = new UsageTotals(store).report(3, new Date(2026, 2, 1, 23, 55)).days.map((d) => d.day);
    assert.deepEqual(days, ['2026-02-27', '2026-02-28', '2026-03-01']);
  });

  it('shows token counts in k, then in M from where k would read 1000k', () => {
    assert.deepEqual([950, 4_500, 999_949, 999_950, 1_234_567, 48_000_000].map(tokens), ['950', '4.5k', '999.9k', '1M', '1.2M', '48M']);
  });

  it('escapes names it shows', () => {
    const usage = new UsageTotals(store);
    store.usage.add([{ scope: 'worker', key: '<img src=x onerror=alert(1)>', ...call(1) }]);
    const html = renderUsageHtml(usage.report(30), { cspSource: 'x', nonce: 'n' });
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.doesNotMatch(html, /<img/);
  });
});

describe('usage of the conversations tool calls open for themselves (in-memory runtime)', () => {
  let f: UnitCore;
  eachUnitCore((core) => (f = core));

  it(`asTool('fresh') calls, a conversation each, add to one usage row a day, as bounded as the ${TOOL_CONVERSATIONS_KEEP} conversations kept; the day's totals stay whole`, async () => {
    const calls = TOOL_CONVERSATIONS_KEEP * 2;
    for (let i = 0; i < calls; i++) f.sessions.script('orchestrator', reply(`answer ${i}`));
    const tool = f.core.access.asTool({ sessionScope: 'fresh' });
    f.core.usage.turn(undefined, 'a conversation of the user');
    for (let i = 0; i < calls; i++) assert.equal(await tool.invoke({ message: `question ${i}` }), `answer ${i}`);
    assert.equal(f.core.store.listConversations().filter((c) => c.id.startsWith(TOOL_CONVERSATION_PREFIX)).length, TOOL_CONVERSATIONS_KEEP);
    const today = usageDay();
    assert.deepEqual(
      f.core.store.usage.totals({ scope: 'orchestrator' }).map((r) => [r.day, r.key, r.requests]),
      [
        [today, 'a conversation of the user', 1],
        [today, TOOL_CALLS_USAGE_KEY, calls],
      ],
    );
    assert.equal(f.core.usage.total('orchestrator').requests, calls + 1, "the day's turns, every one counted");
    assert.deepEqual(
      f.core.usage.report(30).conversations.map((c) => [c.title, c.requests]),
      [
        ['Calls from other agents (asTool)', calls],
        [undefined, 1],
      ],
    );
  });
});
