// Files that say, to every window, "a worker is being placed from this repository now": one of Baton's repositories of
// folders without git (folderRepos.ts) is removed by the window that settles the last change set it knows of, and
// another window may be committing the folder into it at that moment, with no change set of its own recorded yet (each
// window's store learns the others' rows only when it flushes). A marker is written before the placement touches the
// repository and removed once the worker's worktree is recorded (git's own list of worktrees says so from then on). A
// window that died mid-placement leaves one: it no longer counts after STALE_MS, and the next sweep removes it.
// A commit into the repository and its removal each hold the repository's lock (a folder made atomically, `locked`):
// a removal that looked for markers before a placement marked itself is over before that placement's commit starts,
// which then finds no repository and makes one.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sweepFolderLock, withFolderLock } from '../util/folderLock';

/** A placement takes seconds; a marker this old is a dead window's. */
export const STALE_MS = 60 * 60 * 1000;
/** A lock is held for one commit or one removal and refreshed while held (folderLock.ts); one not refreshed for this long is a frozen window's. */
export const LOCK_STALE_MS = 3 * 60 * 1000;

export class PlacingMarkers {
  /** `dir`: `<storage>/folder-repos/.placing`; locks in `locks`: `<storage>/folder-repos/.locks`. */
  constructor(
    private readonly dir: string,
    private readonly locks: string,
  ) {}

  /** Runs `fn` holding the lock of the repository named `repo`, waiting for another window's hold to end. */
  locked<T>(repo: string, fn: () => Promise<T>): Promise<T> {
    return withFolderLock(join(this.locks, repo), LOCK_STALE_MS, fn);
  }

  /** Marks a placement from the repository named `repo` (its folder name); returns the marker to remove. */
  async add(repo: string): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const marker = join(this.dir, `${repo}.${process.pid}.${randomBytes(4).toString('hex')}`);
    await writeFile(marker, '');
    return marker;
  }

  async remove(marker: string): Promise<void> {
    await rm(marker, { force: true });
  }

  /** Whether a placement from `repo` is under way in some window (a marker younger than STALE_MS). */
  async any(repo: string, now = Date.now()): Promise<boolean> {
    for (const name of await this.names()) {
      if (!name.startsWith(`${repo}.`)) continue;
      const st = await stat(join(this.dir, name)).catch(() => undefined);
      if (st && now - st.mtimeMs < STALE_MS) return true;
    }
    return false;
  }

  /** Removes the markers and locks of windows that died mid-placement or mid-removal. */
  async sweep(now = Date.now()): Promise<void> {
    for (const name of await this.names()) {
      const st = await stat(join(this.dir, name)).catch(() => undefined);
      if (st && now - st.mtimeMs >= STALE_MS) await rm(join(this.dir, name), { force: true });
    }
    for (const name of await readdir(this.locks).catch(() => [] as string[])) await sweepFolderLock(join(this.locks, name), LOCK_STALE_MS);
  }

  private names(): Promise<string[]> {
    return readdir(this.dir).catch(() => [] as string[]);
  }
}
