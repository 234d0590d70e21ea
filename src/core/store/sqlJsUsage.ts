// Usage totals per day and per orchestrator / worker / squad, added to as the runtime reports model calls.
import { z } from 'zod';
import type { UsageDelta, UsageQuery, UsageRow, UsageStore, UsageSum } from './areaTypes';
import type { TableAccess } from './sqlJsMemories';
import { localDay } from '../util/localTime';

const usageSchema = z.object({
  day: z.string(),
  scope: z.enum(['orchestrator', 'worker', 'squad']),
  key: z.string(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  premium_requests: z.number(),
  requests: z.number(),
}) satisfies z.ZodType<UsageRow>;

/** The day usage is counted under: the user's, so "today" in the totals starts at their midnight, not at UTC's. */
export const usageDay = localDay;

export class SqlJsUsage implements UsageStore {
  constructor(private readonly access: TableAccess) {}

  add(deltas: UsageDelta[], day = usageDay()): void {
    const real = deltas.filter((d) => d.inputTokens || d.outputTokens || d.premiumRequests || d.requests);
    if (real.length) this.access.commit({ op: 'addUsage', day, deltas: real.map((d) => ({ ...d })) });
  }

  totals(query: UsageQuery = {}): UsageRow[] {
    const { where, params } = whereOf(query);
    return this.access.read(
      () =>
        this.access.tables.rows(
          'usage_totals',
          `SELECT day, scope, key, input_tokens, output_tokens, premium_requests, requests FROM usage_totals ${where} ORDER BY day DESC, scope, key`,
          params,
          usageSchema,
        ),
      [],
    );
  }

  sum(query: UsageQuery = {}): UsageSum {
    const { where, params } = whereOf(query);
    const zero: UsageSum = { input_tokens: 0, output_tokens: 0, premium_requests: 0, requests: 0 };
    return this.access.read(() => {
      const row = this.access.tables.first(
        `SELECT total(input_tokens), total(output_tokens), total(premium_requests), total(requests) FROM usage_totals ${where}`,
        params,
      );
      const [input_tokens, output_tokens, premium_requests, requests] = (row ?? []).map((v) => (typeof v === 'number' ? v : 0));
      return { input_tokens: input_tokens ?? 0, output_tokens: output_tokens ?? 0, premium_requests: premium_requests ?? 0, requests: requests ?? 0 };
    }, zero);
  }
}

function whereOf(query: UsageQuery): { where: string; params: string[] } {
  const where: string[] = [];
  const params: string[] = [];
  for (const [column, value] of [
    ['day', query.day],
    ['scope', query.scope],
    ['key', query.key],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}
