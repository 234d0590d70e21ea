// What other areas add to the worker pool without reaching into it: a squad's charter and model for one worker,
// the skill folders every worker session gets, and the runtime's usage reports (usage totals).
// The extras are kept beside the worker object (not in the pool), so a resumed session is given them again; and in the
// store (one state row per worker name, swept at start with the endings: pendingWorkers.ts), so a worker listed again
// after a reload keeps its squad's charter, model and usage. Before, such a worker's follow-up ran on the default model,
// without its brief, and its usage counted for no squad.
import { knownMultiplier, type UsageEventData } from '../copilot/callUsage';
import type { AgentEvent } from '../copilot/agentSessions';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { loggedStoreWrite } from '../util/loggedStoreWrite';
import type { Worker } from './workerTypes';
/** What a squad adds to a worker it starts: the agent's charter and decisions, the tier's model. */
export interface WorkerCreateExtras {
  /** Appended to Baton's worker instructions. */
  systemMessage?: string;
  /** Instead of the pool's default model. */
  model?: string;
  /** The squad that started it: its usage counts for that squad (not whichever squad once used its name). */
  squad?: string;
}

/** Hooks for the areas beside the pool (skills, usage); both optional. */
export interface WorkerPoolHooks {
  /** Skill folders every worker session is created (and resumed) with. */
  skillDirectories?: () => string[];
  /** The runtime's usage report of one model call of a worker. */
  onUsage?: (worker: string, usage: UsageEventData, squad: string | undefined) => void;
}

const PREFIX = 'extras:';
const extrasOf = new WeakMap<Worker, WorkerCreateExtras>();
/** Workers whose last prompt went to the runtime with no billed call reported for it yet. */
const unbilled = new WeakSet<Worker>();

/** Keeps `extras` for `w`, and (with `saved`) for the worker of that name a later start lists again. */
export function setWorkerExtras(w: Worker, extras: WorkerCreateExtras, saved?: { store: BatonStore; logger: Logger }): void {
  const kept = pick(extras);
  if (kept) extrasOf.set(w, kept);
  // A worker that takes the name of a squad's earlier one is not that squad's.
  if (saved)
    loggedStoreWrite(
      saved.logger,
      () => {
        if (kept) saved.store.setState(PREFIX + w.name, JSON.stringify(kept));
        else if (saved.store.getState(PREFIX + w.name) !== undefined) saved.store.deleteState(PREFIX + w.name);
      },
      'save what its squad gave the worker',
    );
}

/** Gives a worker listed again (a new object for the same name) the extras its name was started with. */
export function restoreWorkerExtras(w: Worker, store: BatonStore): void {
  const raw = store.getState(PREFIX + w.name);
  if (!raw) return;
  try {
    const kept = pick(JSON.parse(raw) as { [K in keyof WorkerCreateExtras]?: unknown });
    if (kept) extrasOf.set(w, kept);
  } catch {
    // A row that does not parse gives nothing: the worker goes on as one no squad started.
  }
}

/** Removes the saved extras of workers `keep` does not name. */
export function sweepWorkerExtras(store: BatonStore, keep: (name: string) => boolean): void {
  for (const key of store.stateKeys(PREFIX)) if (!keep(key.slice(PREFIX.length))) store.deleteState(key);
}

function pick(e: { [K in keyof WorkerCreateExtras]?: unknown }): WorkerCreateExtras | undefined {
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
  const kept = { systemMessage: text(e.systemMessage), model: text(e.model), squad: text(e.squad) };
  return kept.systemMessage || kept.model || kept.squad ? kept : undefined;
}

/** The squad that started `w`, if one did. */
export function squadOf(w: Worker): string | undefined {
  return extrasOf.get(w)?.squad;
}

/** Reports a worker's model calls (onUsage), and follows whether its last prompt was billed yet. */
export function followUsage(w: Worker, event: AgentEvent, hooks: WorkerPoolHooks): void {
  if (event.type === 'user.message') unbilled.add(w);
  if (event.type !== 'assistant.usage') return;
  if (event.data.initiator === undefined || event.data.initiator === 'user') unbilled.delete(w);
  hooks.onUsage?.(w.name, event.data, squadOf(w));
}

/**
 * A task that ended (failed, timed out, killed) before the first call of its last prompt returned: the runtime reports no
 * usage for it, but the prompt went out as a user request, billed at its model's multiplier. Counted here, once.
 */
export function billUnreported(w: Worker, defaultModel: string | undefined, hooks: WorkerPoolHooks): void {
  if (!unbilled.delete(w)) return;
  const model = extrasOf.get(w)?.model ?? defaultModel;
  // No model named: callUsage would learn the guess as the model's multiplier.
  const cost = model ? knownMultiplier(model) : undefined;
  hooks.onUsage?.(w.name, { initiator: 'user', ...(cost !== undefined ? { cost } : {}) }, squadOf(w));
}

/** The parts of a worker's session spec the extras and hooks decide. */
export function workerSpecExtras(
  w: Worker,
  instructions: string,
  defaultModel: string | undefined,
  hooks: WorkerPoolHooks,
): { systemMessage: string; model?: string; skillDirectories?: string[] } {
  const extras = extrasOf.get(w);
  return {
    systemMessage: extras?.systemMessage ? `${instructions}\n\n${extras.systemMessage}` : instructions,
    model: extras?.model ?? defaultModel,
    skillDirectories: hooks.skillDirectories?.(),
  };
}
