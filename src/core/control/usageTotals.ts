// Usage totals per day: the orchestrator's turns (from each turn's summed usage), each worker's model calls (from
// the runtime's assistant.usage events) and, through the task records, each squad. Shown in tooltips; stored in
// the usage table so they survive restarts and add up across windows.
import type { UsageInfo } from '../../shared/protocol';
import type { UsageDelta, UsageRow, UsageScope } from '../store/areaTypes';
import type { BatonStore } from '../store/types';

export interface UsageTotal {
  inputTokens: number;
  outputTokens: number;
  premiumRequests: number;
  /** Turns for the orchestrator, model calls for workers and squads. */
  requests: number;
}

export class UsageTotals {
  constructor(private readonly store: BatonStore) {}

  /** An orchestrator turn settled with this usage. */
  turn(usage: UsageInfo | undefined): void {
    this.store.usage.add([
      {
        scope: 'orchestrator',
        key: 'orchestrator',
        inputTokens: usage?.inputTokens ?? 0,
        outputTokens: usage?.outputTokens ?? 0,
        premiumRequests: usage?.premiumRequests ?? 0,
        requests: 1,
      },
    ]);
  }

  /** One model call of a worker; counted for its squad too when a squad started it. */
  workerCall(worker: string, usage: { inputTokens?: number; outputTokens?: number; cost?: number }): void {
    const base = { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0, premiumRequests: usage.cost ?? 0, requests: 1 };
    const deltas: UsageDelta[] = [{ scope: 'worker', key: worker, ...base }];
    const squad = this.store.squads.taskOf(worker)?.squad;
    if (squad) deltas.push({ scope: 'squad', key: squad, ...base });
    this.store.usage.add(deltas);
  }

  /** Totals of one scope and key (all of a scope when `key` is left out) on `day` (default today, UTC). */
  total(scope: UsageScope, key?: string, day = today()): UsageTotal {
    return sum(this.store.usage.totals({ day, scope, key }));
  }

  /** "today: 12.3k in / 2.1k out tokens · 4 premium requests · 7 turns", for tooltips. */
  describe(scope: UsageScope, key?: string, day = today()): string {
    const t = this.total(scope, key, day);
    if (!t.requests) return 'no usage today';
    const premium = t.premiumRequests ? ` · ${round(t.premiumRequests)} premium request${t.premiumRequests === 1 ? '' : 's'}` : '';
    const calls = scope === 'orchestrator' ? `${t.requests} turn${t.requests === 1 ? '' : 's'}` : `${t.requests} model call${t.requests === 1 ? '' : 's'}`;
    return `today: ${tokens(t.inputTokens)} in / ${tokens(t.outputTokens)} out tokens${premium} · ${calls}`;
  }
}

function sum(rows: UsageRow[]): UsageTotal {
  return rows.reduce(
    (t, r) => ({
      inputTokens: t.inputTokens + r.input_tokens,
      outputTokens: t.outputTokens + r.output_tokens,
      premiumRequests: t.premiumRequests + r.premium_requests,
      requests: t.requests + r.requests,
    }),
    { inputTokens: 0, outputTokens: 0, premiumRequests: 0, requests: 0 },
  );
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function tokens(n: number): string {
  return n >= 1000 ? `${round(n / 1000)}k` : String(n);
}

function round(n: number): string {
  return String(Math.round(n * 10) / 10);
}
