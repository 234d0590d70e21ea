// What the usage figures get right where the runtime reports nothing, and how they read: a turn stopped before its first
// model call returned is billed its model's multiplier once its prompt went out (never twice); premium requests show up
// to two decimals; the Show Usage chart is scaled by the real highest day; counts are singular when one.
import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageTotals } from '../../src/core/control/usageTotals';
import { callUsage } from '../../src/core/copilot/callUsage';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import { recordDelivered } from '../../src/core/orchestrator/rewind';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { usageDay } from '../../src/core/store/sqlJsUsage';
import { renderUsageHtml } from '../../src/vscode/usageHtml';

const origin = { channel: 'panel' } as const;
const MODEL = 'unit-model-x3';

describe('usage the runtime does not report, and how figures read', () => {
  let dir: string;
  let store: SqlJsStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-usage-unreported-'));
    store = await SqlJsStore.open({ dir, pollIntervalMs: 0 });
    // The runtime reported a request's first call on the model: its multiplier is known from then on.
    callUsage({ model: MODEL, cost: 3, initiator: 'user' });
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A turn of conversation `c` through its events: started, routed to `model`, ended as `end` says. */
  function turn(
    usage: UsageTotals,
    id: string,
    opts: { delivered: boolean; model?: string; end: 'cancelled' | 'failed' | 'timed out' | 'completed'; used?: object },
  ): void {
    const logId = store.appendLog({ role: 'user', content: id, source: 'panel', conversation: 'c' });
    if (opts.delivered) recordDelivered(store, logId, { session: 's', event: `e-${id}`, carried: false });
    const send = (e: Record<string, unknown>): void => usage.turnEvent({ conversation: 'c', turnId: id, ...e } as unknown as OrchestratorEvent, 'c');
    send({ type: 'turn.started', origin, logId });
    send({ type: 'turn.routed', route: { tier: 'fixed', model: opts.model ?? MODEL, reason: 'disabled' } });
    const used = opts.used ?? {};
    const route = { tier: 'fixed', model: opts.model ?? MODEL, reason: 'disabled' };
    if (opts.end === 'cancelled') send({ type: 'turn.cancelled', origin, partial: '', logId: logId + 1000, usage: used });
    if (opts.end === 'failed') send({ type: 'turn.failed', origin, partial: '', logId: logId + 1000, usage: used, error: { kind: 'unknown', message: 'x' } });
    const result = (status: string) => ({ turnId: id, content: '', status, route, usage: used });
    if (opts.end === 'timed out') send({ type: 'turn.completed', origin, logId: logId + 1000, result: result('partial') });
    if (opts.end === 'completed') send({ type: 'turn.completed', origin, logId: logId + 1000, result: result('complete') });
  }

  it('bills a stopped, failed or timed-out turn whose prompt went out at its model multiplier, once', () => {
    const usage = new UsageTotals(store, () => 'c');
    turn(usage, 't1', { delivered: true, end: 'cancelled' });
    turn(usage, 't2', { delivered: true, end: 'failed' });
    turn(usage, 't3', { delivered: true, end: 'timed out' });
    assert.deepEqual(usage.total('orchestrator', 'c'), { inputTokens: 0, outputTokens: 0, premiumRequests: 9, requests: 3 });
  });

  it('never bills twice: not when usage arrived, not a completed turn, not a prompt that never went out or an unknown model', () => {
    const usage = new UsageTotals(store, () => 'c');
    turn(usage, 'u1', { delivered: true, end: 'cancelled', used: { inputTokens: 10, outputTokens: 1, premiumRequests: 3 } });
    turn(usage, 'u2', { delivered: true, end: 'completed', used: {} });
    turn(usage, 'u3', { delivered: false, end: 'cancelled' });
    turn(usage, 'u4', { delivered: true, model: 'never-reported-model', end: 'failed' });
    assert.deepEqual(usage.total('orchestrator', 'c'), { inputTokens: 10, outputTokens: 1, premiumRequests: 3, requests: 4 });
  });

  it('shows premium requests to two decimals and singular counts in the tooltips', () => {
    const usage = new UsageTotals(store, () => 'c');
    usage.workerCall('w1', { inputTokens: 10, outputTokens: 1, premiumRequests: 0.25, requests: 1 });
    assert.equal(usage.describe('worker', 'w1'), 'Usage today: 10 in / 1 out tokens · 0.25 premium requests · 1 request');
    usage.workerCall('w1', { inputTokens: 0, outputTokens: 0, premiumRequests: 0.75, requests: 1 });
    assert.equal(usage.describe('worker', 'w1'), 'Usage today: 10 in / 1 out tokens · 1 premium request · 2 requests');
  });

  it('scales the Show Usage chart by the real highest day and names it, with two decimals and singular counts', () => {
    const usage = new UsageTotals(store, () => 'c');
    const today = usageDay();
    store.usage.add([{ scope: 'worker', key: 'w1', inputTokens: 10, outputTokens: 1, premiumRequests: 0.5, requests: 1 }], today);
    const yesterday = usageDay(new Date(Date.now() - 86_400_000));
    store.usage.add([{ scope: 'worker', key: 'w2', inputTokens: 10, outputTokens: 1, premiumRequests: 0.25, requests: 1 }], yesterday);
    const html = renderUsageHtml(usage.report(30), { cspSource: 'vscode-webview:', nonce: 'n' });
    assert.match(html, /Highest: 0\.5\.<\/figcaption>/);
    // The highest day's bar is the full height; the other half of it.
    assert.match(html, new RegExp(`<rect class="bar" data-day="${today}" x="\\d+" y="0" width="12" height="80"><title>[^<]*: 1 request, 0\\.5 premium,`));
    assert.match(html, new RegExp(`<rect class="bar" data-day="${yesterday}" x="\\d+" y="40" width="12" height="40">`));
    assert.match(html, /<th scope="row">w2<\/th><td class="num">1<\/td><td class="num">0\.25<\/td>/);
    assert.match(html, /Last 30 days: 2 requests, 0\.75 premium requests,/);
  });

  it('draws an empty month without dividing by nothing, and says one request as one', () => {
    const usage = new UsageTotals(store, () => 'c');
    const empty = renderUsageHtml(usage.report(30), { cspSource: 'vscode-webview:', nonce: 'n' });
    assert.match(empty, /Highest: 0\.<\/figcaption>/);
    assert.doesNotMatch(empty, /NaN|Infinity/);
    usage.workerCall('w1', { inputTokens: 10, outputTokens: 1, premiumRequests: 1, requests: 1 });
    assert.match(renderUsageHtml(usage.report(30), { cspSource: 'vscode-webview:', nonce: 'n' }), /Last 30 days: 1 request, 1 premium request,/);
  });
});
