// Closing Baton is a list of steps that must all run: one skipped because an earlier one threw leaves the Copilot
// runtime running, the last write to the store unsaved or this window's claim files behind, and nothing after a close
// can retry it.
import type { Logger } from './logger';

/**
 * Runs `steps` in order, each once the one before has settled; a step that throws or rejects is logged (`what` names the
 * whole) and the next one runs all the same. Never rejects. Steps that return no promise run back to back, with no
 * await between them, as they would written one after the other.
 */
export async function runEveryStep(logger: Logger, what: string, steps: ReadonlyArray<() => unknown>): Promise<void> {
  for (const [i, step] of steps.entries()) {
    try {
      const result = step();
      if (result instanceof Promise) await result;
    } catch (err) {
      logger.error(`${what}: step ${i + 1} of ${steps.length} failed`, err);
    }
  }
}
