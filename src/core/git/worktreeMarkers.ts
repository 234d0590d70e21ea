// Files that say, to every window, "this worktree is a worker's being placed, or one just recorded": Clean Up Orphaned
// Worktrees must not take it for an orphan. A worktree exists (git's add, then the include copy) before the store holds
// its change set, and another window's copy of the store learns that row only after this one flushes and that one polls
// (a few seconds, more while the store's lease is contended). As for folder copies (placingMarkers.ts):
// - a marker is written before `git worktree add`, and counts while younger than STALE_MS (a placement takes seconds;
//   one older is a dead window's, and goes at the next look);
// - once the change set is recorded, the marker counts RECORDED_GRACE_MS more (every window's store has the row by
//   then), written into it as the time it stops counting;
// - a placement that failed, and a removal of the worktree, take its markers away: what is left is an orphan at once.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { STALE_MS } from './placingMarkers';

/** How long a recorded worktree stays marked: longer than any window's store takes to learn another's row. */
export const RECORDED_GRACE_MS = 2 * 60_000;

export class WorktreeMarkers {
  /** `dir`: `<storage>/worktree-placing`, outside the worktrees (a worker writes in its own). */
  constructor(private readonly dir: string) {}

  /** Marks the worktree at `worktreePath` (`<worktrees>/<repoKey>/<worker>`) as being placed; returns the marker. */
  async add(worktreePath: string): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const marker = join(this.dir, `${keyOf(worktreePath)}~${process.pid}.${randomBytes(4).toString('hex')}`);
    await writeFile(marker, '');
    return marker;
  }

  /** Its change set is recorded: the marker counts RECORDED_GRACE_MS more, then goes at the next look. */
  async recorded(marker: string, now = Date.now()): Promise<void> {
    await writeFile(marker, String(now + RECORDED_GRACE_MS));
  }

  async remove(marker: string): Promise<void> {
    await rm(marker, { force: true });
  }

  /** Takes away every marker of the worktree at `worktreePath` (it is being removed). */
  async clear(worktreePath: string): Promise<void> {
    const key = keyOf(worktreePath);
    for (const name of await this.names()) if (name.startsWith(`${key}~`)) await this.remove(join(this.dir, name));
  }

  /** The worktrees (`<repoKey>/<worker>`) marked now; markers that no longer count are removed. */
  async live(now = Date.now()): Promise<Set<string>> {
    const marked = new Set<string>();
    for (const name of await this.names()) {
      const file = join(this.dir, name);
      const [repo, worker] = name.split('~');
      const st = await stat(file).catch(() => undefined);
      if (!st || !worker) continue;
      // Empty: placing (or its `recorded` write half done). A number: the time it stops counting.
      const until = Number((await readFile(file, 'utf8').catch(() => '')).trim() || Infinity);
      if (now - st.mtimeMs >= STALE_MS || now >= until) await this.remove(file);
      else marked.add(`${repo}/${worker}`);
    }
    return marked;
  }

  private names(): Promise<string[]> {
    return readdir(this.dir).catch(() => [] as string[]);
  }
}

/** `<repoKey>~<worker>`: neither holds a `~` (repoKey and the worker names a branch may have). */
function keyOf(worktreePath: string): string {
  return `${basename(dirname(worktreePath))}~${basename(worktreePath)}`;
}

/** What `live` names the worktree at `worktreePath` by. */
export function markedName(worktreePath: string): string {
  return `${basename(dirname(worktreePath))}/${basename(worktreePath)}`;
}
