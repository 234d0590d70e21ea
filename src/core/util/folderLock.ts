// A lock every window of this machine sees: a folder made atomically (mkdir fails when it exists), holding its owner's
// pid and host. A window that died holding it is taken over as soon as its process is gone; a hold not refreshed for
// `staleMs` is taken over too (a frozen process, or one on another host, which cannot be asked): the holder touches the
// folder every third of that, so a slow write is never taken from a live window. Taking over renames the folder away
// (only one waiter can) and checks it was still the stale owner's before removing it, so two waiters that both judged it
// stale do not both take it.
import { hostname } from 'node:os';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from './processAlive';

const OWNER = 'owner';
/** How often a waiter looks again (a hold lasts one git call or so: tens of ms to a few s). */
const POLL_MS = 20;

/** Runs `fn` holding the lock folder `lock`, waiting for another window's hold to end. */
export async function withFolderLock<T>(lock: string, staleMs: number, fn: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lock), { recursive: true });
  const me = `${process.pid} ${hostname()} ${randomBytes(4).toString('hex')}`;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, OWNER), me);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = await staleOwner(lock, staleMs);
      if (owner === undefined || !(await takeOver(lock, owner))) await sleep(POLL_MS);
    }
  }
  const beat = setInterval(() => {
    const now = new Date();
    void utimes(lock, now, now).catch(() => undefined);
  }, staleMs / 3);
  beat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(beat);
    await rm(lock, { recursive: true, force: true });
  }
}

/** Removes `lock` when its owner is gone or its hold is older than `staleMs` (a start's sweep); true if it went. */
export async function sweepFolderLock(lock: string, staleMs: number): Promise<boolean> {
  const owner = await staleOwner(lock, staleMs);
  return owner !== undefined && takeOver(lock, owner);
}

/** The owner text of a stale hold ('' when it has none yet and is old), undefined while the hold is live. */
async function staleOwner(lock: string, staleMs: number): Promise<string | undefined> {
  const st = await stat(lock).catch(() => undefined);
  if (!st) return undefined;
  const owner = await readFile(join(lock, OWNER), 'utf8').catch(() => '');
  if (Date.now() - st.mtimeMs > staleMs) return owner;
  // No owner yet: made a moment ago, its owner about to write it.
  if (!owner) return undefined;
  const [pid, host] = owner.split(' ');
  return host === hostname() && Number(pid) !== process.pid && !processAlive(Number(pid)) ? owner : undefined;
}

async function takeOver(lock: string, owner: string): Promise<boolean> {
  const aside = `${lock}.stale-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lock, aside);
  } catch {
    return false;
  }
  const moved = await readFile(join(aside, OWNER), 'utf8').catch(() => '');
  if (moved !== owner) {
    // Another waiter took the stale hold over and made its own between our look and the rename: put that back (the
    // name stays free the few microseconds between the two renames) and wait our turn.
    await rename(aside, lock).catch(() => undefined);
    return false;
  }
  await rm(aside, { recursive: true, force: true });
  return true;
}
