// A store write in a worker's lifecycle (its task ending, a kill, a window starting, its change set settling) that
// fails must not stop that lifecycle half-way: the failure is logged, and what follows still runs.
import type { Logger } from './logger';

export function loggedStoreWrite<T>(logger: Logger, fn: () => T, what: string): T | undefined {
  try {
    return fn();
  } catch (err) {
    logger.error(`Workers: could not ${what}`, err);
    return undefined;
  }
}
