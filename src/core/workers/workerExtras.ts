// What other areas add to the worker pool without reaching into it: a squad's charter and model for one worker,
// the skill folders every worker session gets, and the runtime's usage reports (usage totals).
// The extras are kept beside the worker object (not in the pool), so a resumed session is given them again.
import type { UsageEventData } from '../copilot/callUsage';
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

const extrasOf = new WeakMap<Worker, WorkerCreateExtras>();

export function setWorkerExtras(w: Worker, extras: WorkerCreateExtras): void {
  if (extras.systemMessage || extras.model || extras.squad) extrasOf.set(w, { systemMessage: extras.systemMessage, model: extras.model, squad: extras.squad });
}

/** The squad that started `w`, if one did. */
export function squadOf(w: Worker): string | undefined {
  return extrasOf.get(w)?.squad;
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
