// Holding every open conversation's queue: what would pull a session from under a running turn (a restart of the
// runtime, a new session for every conversation) waits for each running turn to end, and no turn starts until it is
// released.
import { withTimeout } from '../util/delay';

/** A conversation's queue (an Orchestrator's): `fn` runs after its running turn and before any turn queued. */
export interface HeldQueue {
  beforeNextTurn(fn: () => Promise<void>): Promise<void>;
}

/**
 * Holds every queue at its front (after a running turn) until released; undefined, with nothing held, when one is not
 * held within `timeoutMs`. Without a timeout it waits for every running turn, however long (a conversation closed
 * meanwhile runs nothing more: it counts as held).
 */
export async function holdAll(conversations: readonly HeldQueue[], timeoutMs?: number): Promise<(() => void) | undefined> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const entered = conversations.map(
    (c) =>
      new Promise<void>((held) => {
        // Settled without its hold having run: a conversation closed meanwhile, which runs nothing more.
        c.beforeNextTurn(async () => {
          held();
          await released;
        }).then(held, held);
      }),
  );
  const all = Promise.all(entered);
  const ok = await (timeoutMs === undefined ? all : withTimeout(all, timeoutMs, 'not held')).then(
    () => true,
    () => false,
  );
  if (ok) return release;
  release();
  return undefined;
}

/** Runs `fn` with every queue held (waiting for every running turn first), then lets them go on. */
export async function whileHeld(conversations: readonly HeldQueue[], fn: () => Promise<void>): Promise<void> {
  const release = await holdAll(conversations);
  try {
    await fn();
  } finally {
    release?.();
  }
}
