// Usage totals per day: the orchestrator's turns per conversation (completed, failed or stopped, each with what it
// used, the classifier's request that routed it included; a compaction's summary with no turn), each worker's
// requests and, through the task records, each squad's. A request is billed once, by its model's multiplier, however
// many tool rounds it takes (callUsage.ts). Shown in the Show Usage view and the panel header's tooltip; stored in the
// usage table so they survive restarts and add up across windows.
import type { UsageInfo } from '../../shared/protocol';
import { knownMultiplier, type CallUsage } from '../copilot/callUsage';
import type { OrchestratorEvent } from '../orchestrator/events';
import { deliveredAt } from '../orchestrator/rewind';
import type { UsageDelta, UsageRow, UsageScope, UsageSum } from '../store/areaTypes';
import { usageDay } from '../store/sqlJsUsage';
import type { BatonStore } from '../store/types';
import { conversationsByUsageKey, TOOL_CALLS_USAGE_KEY } from '../orchestrator/usageConversation';

export interface UsageTotal {
  inputTokens: number;
  outputTokens: number;
  premiumRequests: number;
  /** User requests: turns for the orchestrator, prompts for workers and squads (tool rounds are not requests). */
  requests: number;
}

/** What the Show Usage view shows: the last `days` days, and the totals over them by conversation, worker and squad. */
export interface UsageReport {
  days: Array<{ day: string } & UsageTotal>;
  total: UsageTotal;
  /** `title`: the conversation's, while it is in the list under this key (not deleted since). */
  conversations: Array<{ key: string; title?: string } & UsageTotal>;
  workers: Array<{ key: string } & UsageTotal>;
  squads: Array<{ key: string } & UsageTotal>;
}

/** What the panel header's tooltip sums: the day's usage in all, this conversation's turns, and workers'. */
interface HeaderTotals {
  day: string;
  conversation: string;
  all: UsageTotal;
  here: UsageTotal;
  workers: UsageTotal;
}

const ZERO: UsageTotal = { inputTokens: 0, outputTokens: 0, premiumRequests: 0, requests: 0 };

export class UsageTotals {
  /**
   * The header's totals as last summed, for which day and conversation: asked several times a turn, they change only
   * with usage. This window's own writes are added to them (it knows what it wrote); another window's start them over.
   */
  private header: HeaderTotals | undefined;
  /** A write of this window's is being committed: its change event does not start the header over. */
  private writing = false;
  /** Turns started and not ended: the user's row (where its delivery is recorded) and the model it was routed to. */
  private readonly open = new Map<string, { logId: number; model?: string }>();

  constructor(
    private readonly store: BatonStore,
    /** The conversation turns are totalled under (Orchestrator.conversationId). */
    private readonly conversation: () => string = () => 'orchestrator',
  ) {
    store.onDidChange((what, fromOtherWindow) => {
      if (what === 'usage' && (fromOtherWindow || !this.writing)) this.header = undefined;
    });
  }

  /** An orchestrator turn of `conversation` (default the one shown) ended having used this; it is one request. */
  turn(usage: UsageInfo | undefined, conversation?: string): void {
    this.add([
      {
        scope: 'orchestrator',
        key: conversation ?? this.conversation(),
        inputTokens: usage?.inputTokens ?? 0,
        outputTokens: usage?.outputTokens ?? 0,
        premiumRequests: usage?.premiumRequests ?? 0,
        requests: 1,
      },
    ]);
  }

  /**
   * A conversation's turn events: each turn that ends (completed, failed, stopped) is counted with what it used. One
   * that ended before its first model call returned has no usage reported (the runtime reports a call when it returns),
   * though its prompt went out as a user request: once its delivery is recorded, its model's multiplier is counted.
   */
  turnEvent(e: OrchestratorEvent, conversation: string | undefined): void {
    if (e.type === 'turn.started') this.open.set(e.turnId, { logId: e.logId });
    if (e.type === 'turn.routed') {
      const t = this.open.get(e.turnId);
      if (t) t.model = e.route.model;
    }
    if (e.type !== 'turn.completed' && e.type !== 'turn.failed' && e.type !== 'turn.cancelled') return;
    const turn = this.open.get(e.turnId);
    this.open.delete(e.turnId);
    const used = e.type === 'turn.completed' ? e.result.usage : e.usage;
    // A completed turn's calls returned (a timed-out one may not have: its reply is partial).
    const ended = e.type !== 'turn.completed' || e.result.status !== 'complete';
    this.turn(ended && turn ? this.withUnreported(turn, used) : used, conversation);
  }

  /** `used`, with the turn's prompt billed when it was delivered and no usage of its model's call arrived. */
  private withUnreported(turn: { logId: number; model?: string }, used: UsageInfo | undefined): UsageInfo | undefined {
    const multiplier = turn.model === undefined ? undefined : knownMultiplier(turn.model);
    const premium = used?.premiumRequests ?? 0;
    // Never twice: any premium that arrived covers the call (a classifier's request may make this count too little).
    if (!multiplier || premium >= multiplier - 1e-9) return used;
    const row = this.store.logRows([turn.logId])[0];
    return row && deliveredAt(row) ? { ...used, premiumRequests: premium + multiplier } : used;
  }

  /** A request Baton made for `conversation` outside its turns (a compaction's summary): billed, but no turn. */
  conversationCall(conversation: string, call: CallUsage): void {
    this.add([{ scope: 'orchestrator', key: conversation, ...call, requests: 0 }]);
  }

  /** One model call of a worker; counted for its squad too when a squad started it (`squad`). */
  workerCall(worker: string, call: CallUsage, squad?: string): void {
    const deltas: UsageDelta[] = [{ scope: 'worker', key: worker, ...call }];
    if (squad) deltas.push({ scope: 'squad', key: squad, ...call });
    this.add(deltas);
  }

  /** Totals of one scope and key (all of a scope when `key` is left out) on `day` (default today, where the user is). */
  total(scope: UsageScope, key?: string, day = today()): UsageTotal {
    return totalOf(this.store.usage.sum({ day, scope, key }));
  }

  /** "today: 12.3k in / 2.1k out tokens · 4 premium requests · 7 turns", for tooltips. */
  describe(scope: UsageScope, key?: string, day = today()): string {
    const t = this.total(scope, key, day);
    // A line of a tooltip as it stands (Workers and Squads views).
    if (!t.requests && !t.inputTokens) return 'No usage today';
    return `Usage today: ${describeTotal(t, scope === 'orchestrator' ? 'turn' : 'request')}`;
  }

  /** The panel header's tooltip: today's totals, this conversation's, and workers' and squads'. */
  headerText(): string {
    const day = today();
    const conversation = this.conversation();
    // Asked on every change of the panel's state (several a turn): summed again only after another window's usage.
    if (this.header?.day !== day || this.header.conversation !== conversation) this.header = this.sumHeader(day, conversation);
    const { all, here, workers } = this.header;
    if (!all.requests && !all.inputTokens) return 'no usage today';
    const parts = [`today: ${describeTotal(all, 'request')}`];
    if (here.requests) parts.push(`this conversation: ${describeTotal(here, 'turn')}`);
    if (workers.requests || workers.inputTokens) parts.push(`workers: ${describeTotal(workers, 'request')}`);
    return `${parts.join('\n')}\nBaton: Show Usage has the last 30 days`;
  }

  private sumHeader(day: string, conversation: string): HeaderTotals {
    // Summed by SQLite, however many workers ran today. A squad's requests are its workers' too: the day's total counts
    // the conversations and the workers only (as report() does), or every squad task was counted twice.
    const workers = this.total('worker', undefined, day);
    const all = this.total('orchestrator', undefined, day);
    addTo(all, workers);
    return { day, conversation, all, here: this.total('orchestrator', conversation, day), workers };
  }

  /** Writes this window's usage, and adds it to the header's totals as the sums would count it. */
  private add(deltas: UsageDelta[]): void {
    const day = today();
    this.writing = true;
    try {
      this.store.usage.add(deltas, day);
    } finally {
      this.writing = false;
    }
    const h = this.header;
    if (!h) return;
    if (h.day !== day) {
      this.header = undefined;
      return;
    }
    for (const d of deltas) {
      if (d.scope !== 'squad') addTo(h.all, d);
      if (d.scope === 'orchestrator' && d.key === h.conversation) addTo(h.here, d);
      if (d.scope === 'worker') addTo(h.workers, d);
    }
  }

  /** The last `days` days (oldest first, today last), and the totals over them. */
  report(days = 30, now = new Date()): UsageReport {
    const dayList: string[] = [];
    for (let i = days - 1; i >= 0; i--) {
      dayList.push(usageDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - i)));
    }
    const rows = this.store.usage.totals().filter((r) => r.day >= dayList[0]!);
    let byUsageKey: ReturnType<typeof conversationsByUsageKey> | undefined;
    const titles = () => (byUsageKey ??= conversationsByUsageKey(this.store));
    const byKey = (scope: UsageScope) => {
      const keys = new Map<string, UsageRow[]>();
      for (const r of rows) if (r.scope === scope) keys.set(r.key, [...(keys.get(r.key) ?? []), r]);
      return [...keys].map(([key, rs]) => ({ key, ...sum(rs) })).sort((a, b) => b.premiumRequests - a.premiumRequests || b.requests - a.requests);
    };
    // A squad's requests are also its workers': the day's and the whole total count workers and the orchestrator only.
    const counted = rows.filter((r) => r.scope !== 'squad');
    return {
      days: dayList.map((day) => ({ day, ...sum(counted.filter((r) => r.day === day)) })),
      total: sum(counted),
      conversations: byKey('orchestrator')
        .sort((a, b) => (a.key < b.key ? 1 : -1))
        .map((c) => {
          // Every conversation a tool call opened for itself, under one key (usageConversation.ts).
          const title = c.key === TOOL_CALLS_USAGE_KEY ? 'Calls from other agents (asTool)' : titles().get(c.key)?.title;
          return title === undefined ? c : { ...c, title };
        }),
      workers: byKey('worker'),
      squads: byKey('squad'),
    };
  }
}

function describeTotal(t: UsageTotal, unit: 'turn' | 'request'): string {
  const premium = t.premiumRequests ? ` · ${premiumRequests(t.premiumRequests)}` : '';
  return `${tokens(t.inputTokens)} in / ${tokens(t.outputTokens)} out tokens${premium} · ${plural(t.requests, unit)}`;
}

/** "1 turn", "2 requests", "0.5 requests" (only exactly one is singular). */
export function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Premium requests as a figure: up to two decimals, no trailing zeros (0.25 and 0.33 are multipliers; 0.3 was shown). */
export function premiumFigure(n: number): string {
  return String(Number(n.toFixed(2)));
}

/** "1 premium request", "0.25 premium requests". */
export function premiumRequests(n: number): string {
  return plural(Number(premiumFigure(n)), 'premium request');
}

function totalOf(s: UsageSum): UsageTotal {
  return { inputTokens: s.input_tokens, outputTokens: s.output_tokens, premiumRequests: s.premium_requests, requests: s.requests };
}

function addTo(t: UsageTotal, d: UsageTotal): void {
  t.inputTokens += d.inputTokens;
  t.outputTokens += d.outputTokens;
  t.premiumRequests += d.premiumRequests;
  t.requests += d.requests;
}

function sum(rows: UsageRow[]): UsageTotal {
  return rows.reduce(
    (t, r) => ({
      inputTokens: t.inputTokens + r.input_tokens,
      outputTokens: t.outputTokens + r.output_tokens,
      premiumRequests: t.premiumRequests + r.premium_requests,
      requests: t.requests + r.requests,
    }),
    { ...ZERO },
  );
}

function today(): string {
  return usageDay();
}

/** A token count as the totals show it: 950, 4.5k, 1.2M (a month of daily use runs to millions). */
export function tokens(n: number): string {
  // From where thousands would round to 1000k.
  if (n >= 999_950) return `${round(n / 1_000_000)}M`;
  return n >= 1000 ? `${round(n / 1000)}k` : String(n);
}

export function round(n: number): string {
  return String(Math.round(n * 10) / 10);
}
