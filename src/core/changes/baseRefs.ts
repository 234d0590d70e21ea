// A change set's base is the commit its diffs and applies are computed from. It starts as the
// commit the worktree was made from, and moves forward when part of the change lands in the user's
// tree (a partial apply) or when the worker is moved onto the user's current tree (resolving
// conflicts). Invariants:
// - a moved base is a commit Baton writes itself (never in the user's branches, never with hooks),
//   kept alive by exactly one ref, `refs/baton/base/<worker>`, which goes when the change set does:
//   one ref per pending change set, no more;
// - the worktree's files, HEAD and index are not touched here.
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from '../git/git';
import type { ChangeSet } from './changeSet';

/** Baton's own identity for the base commits it writes (they are never the user's history). */
const BATON_IDENT: Record<string, string> = {
  GIT_AUTHOR_NAME: 'Baton',
  GIT_AUTHOR_EMAIL: 'baton@localhost',
  GIT_COMMITTER_NAME: 'Baton',
  GIT_COMMITTER_EMAIL: 'baton@localhost',
};

export function baseRef(worker: string): string {
  return `refs/baton/base/${worker}`;
}

export class BaseRefs {
  constructor(
    private readonly git: Git,
    /** Temporary indexes go in `<storageDir>/tmp`. */
    private readonly storageDir: string,
  ) {}

  /**
   * A new base: the old base with `paths` taken from `tree` (deleted where `tree` has none), as a
   * commit whose parent is the old base. Used after a partial apply: those files are now the user's.
   */
  async advance(cs: ChangeSet, tree: string, paths: readonly string[], message: string): Promise<string> {
    const newTree = await this.withIndex(cs, async (env) => {
      const cwd = cs.worktreePath;
      await this.git.run(['read-tree', cs.baseCommit], { cwd, env });
      const literal = paths.map((p) => `:(literal)${p}`);
      // Raw records `:oldmode newmode oldsha newsha X\0path\0` (no rename pairing: each path on its own).
      const raw = (await this.git.run(['diff-tree', '-r', '-z', '--no-renames', cs.baseCommit, tree, '--', ...literal], { cwd })).split('\0');
      const gone: string[] = [];
      const info: string[] = [];
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const [, , mode, , sha, status] = /^:(\d+) (\d+) (\w+) (\w+) (\w)/.exec(raw[i]) ?? [];
        if (!status) break;
        if (status === 'D') gone.push(raw[i + 1]);
        else info.push(`${mode} ${sha}\t${raw[i + 1]}`);
      }
      if (gone.length) await this.git.run(['update-index', '-z', '--force-remove', '--stdin'], { cwd, env, input: gone.join('\0') });
      if (info.length) await this.git.run(['update-index', '-z', '--index-info'], { cwd, env, input: info.join('\0') + '\0' });
      return (await this.git.run(['write-tree'], { cwd, env })).trim();
    });
    return this.commit(cs, newTree, [cs.baseCommit], message);
  }

  /** A commit of `tree` with `parents`, kept by the worker's base ref; returns its id. */
  async commit(cs: ChangeSet, tree: string, parents: readonly string[], message: string): Promise<string> {
    const cwd = cs.worktreePath;
    const commit = (await this.git.run(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message], { cwd, env: BATON_IDENT })).trim();
    await this.git.run(['update-ref', baseRef(cs.worker), commit], { cwd });
    return commit;
  }

  /** Points the base ref back at `commit` (an undone move), or removes it when the base is the worktree's first one. */
  async restore(cs: ChangeSet, commit: string, original: boolean): Promise<void> {
    if (original) await this.remove(cs);
    else await this.git.run(['update-ref', baseRef(cs.worker), commit], { cwd: cs.repoRoot });
  }

  async exists(cs: Pick<ChangeSet, 'worker' | 'repoRoot'>): Promise<boolean> {
    return this.git.succeeds(['show-ref', '--verify', '--quiet', baseRef(cs.worker)], { cwd: cs.repoRoot });
  }

  /** Drops the worker's base ref (the change set is settled); fine when there is none. */
  async remove(cs: Pick<ChangeSet, 'worker' | 'repoRoot'>): Promise<void> {
    // A repository moved or deleted took its refs along: nothing left here to remove.
    if (!existsSync(cs.repoRoot)) return;
    if (await this.exists(cs)) {
      await this.git.run(['update-ref', '-d', baseRef(cs.worker)], { cwd: cs.repoRoot });
    }
  }

  private async withIndex<T>(cs: ChangeSet, fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
    const tmpDir = join(this.storageDir, 'tmp');
    await mkdir(tmpDir, { recursive: true });
    const index = join(tmpDir, `base-${cs.worker}-${randomBytes(6).toString('hex')}`);
    try {
      return await fn({ GIT_INDEX_FILE: index });
    } finally {
      await rm(index, { force: true });
      await rm(`${index}.lock`, { force: true });
    }
  }
}
