// A checkpoint row as the API shows it (api/baton.d.ts BatonCheckpoint).
import type { BatonCheckpoint } from '../../../api/baton';
import type { CheckpointRow } from '../store/types';

/** The route is stored as "tier:model:reason"; a model id may itself hold a colon. */
function parseRoute(route: string | null): BatonCheckpoint['route'] {
  if (!route) return { model: '', tier: '', reason: '' };
  const first = route.indexOf(':');
  const last = route.lastIndexOf(':');
  if (first < 0 || last === first) return { model: route, tier: '', reason: '' };
  return { tier: route.slice(0, first), model: route.slice(first + 1, last), reason: route.slice(last + 1) };
}

export function toCheckpoint(row: CheckpointRow): BatonCheckpoint {
  return {
    conversation: row.conversation,
    turnIndex: row.turn_index,
    signature: row.fingerprint,
    route: parseRoute(row.route),
    status: row.status,
    ...(row.input_tokens !== null ? { inputTokens: row.input_tokens } : {}),
    ...(row.output_tokens !== null ? { outputTokens: row.output_tokens } : {}),
    at: `${row.ts.replace(' ', 'T')}${/[zZ]|[+-]\d\d:?\d\d$/.test(row.ts) ? '' : 'Z'}`,
  };
}
