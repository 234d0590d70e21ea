// The orchestrator's lifecycle events (Warlock's fourteen) as the public API shows them (api/baton.d.ts, version 2):
// what a caller reads, never the text written for the model.
import type { BatonEventV2 } from '../../../api/baton';
import type { RouteInfo } from '../../shared/protocol';
import type { OrchestratorEvent } from '../orchestrator/events';

/** Who decided a route: a keyword rule, the classifier, or a fixed rule or setting. */
export function routeSource(reason: RouteInfo['reason']): 'keyword' | 'classifier' | 'fixed' {
  if (reason === 'override') return 'keyword';
  if (reason === 'classifier' || reason === 'cooldown') return 'classifier';
  return 'fixed';
}

/** The public event for one of the orchestrator's lifecycle steps (not the turn's start, stream or end). */
export function lifecycleEvent(e: OrchestratorEvent, conversation: string): BatonEventV2 | undefined {
  switch (e.type) {
    case 'session.loaded':
      return { type: e.type, turnId: e.turnId, conversation, ...(e.sessionId ? { sessionId: e.sessionId } : {}), how: e.how, reason: e.reason };
    case 'drift.checked':
      return {
        type: e.type,
        turnId: e.turnId,
        conversation,
        drifted: e.drifted,
        signature: e.signature,
        ...(e.previous !== undefined ? { previous: e.previous } : {}),
        action: e.action,
      };
    case 'lock.waiting':
      return { type: e.type, turnId: e.turnId, conversation, holder: e.holder };
    case 'history.windowed':
      return {
        type: e.type,
        turnId: e.turnId,
        conversation,
        context: e.window.context,
        history: e.window.history,
        memories: e.window.memories.map((m) => ({ id: m.id, category: m.category as never })),
        promptChars: e.window.promptChars,
      };
    case 'turn.routed':
      return {
        type: e.type,
        turnId: e.turnId,
        conversation,
        model: e.route.model,
        tier: e.route.tier,
        reason: e.route.reason,
        source: routeSource(e.route.reason),
        raw: { reason: e.route.reason, tier: e.route.tier, ...(e.classified ? { classifier: e.classified } : {}) },
      };
    case 'checkpoint.persisted':
      return { type: e.type, turnId: e.turnId, conversation, turnIndex: e.turnIndex };
    case 'compaction.suggested':
      return { type: e.type, ...(e.turnId ? { turnId: e.turnId } : {}), conversation, turns: e.turns, afterTurns: e.afterTurns, keep: e.keep };
    case 'compaction.applied':
      return { type: e.type, ...(e.turnId ? { turnId: e.turnId } : {}), conversation, ...e.compaction };
    default:
      return undefined;
  }
}

/** The event types version 1 of the API has (its callers get only these). */
export const V1_EVENTS: ReadonlySet<string> = new Set([
  'turn.starting',
  'turn.routed',
  'turn.streaming',
  'turn.completed',
  'turn.failed',
  'turn.cancelled',
  'worker.started',
  'worker.progress',
  'worker.finished',
  'worker.changes-ready',
]);
