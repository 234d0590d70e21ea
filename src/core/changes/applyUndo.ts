// Undo Apply: the patch an Apply wrote into the user's tree is kept (Baton's storage, `applied/`), so that Apply can be
// taken back exactly: `git apply -R` of the same patch, all or nothing. A file changed since the Apply (by the user,
// another worker's Apply) or open with unsaved changes refuses it by name, and nothing is touched: the user's later
// edits are never overwritten. What the Apply found already there (the same edit made elsewhere) is left alone.
// Kept for an Apply that settled a worker's changes (the whole change set, or the last of it), one per worker (its
// latest). Bounded: MAX_UNDOABLE_APPLIES records, the oldest let go past that, and at start any patch no record names.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GitError, type Git } from '../git/git';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { ChangeError } from './changeError';
import { caseKey, pathKeys } from '../util/pathKeys';
import { globEscape } from './patchFile';

export const APPLIED_DIR = 'applied';
/** The most Applies that can be undone (one per worker, the newest kept). */
export const MAX_UNDOABLE_APPLIES = 10;
const KEY_PREFIX = 'applied:';

export interface UndoRecord {
  worker: string;
  /** The folder the patch was applied in (the root of the user's repository, or the folder without git). */
  root: string;
  /** The patch's file name in `applied/`. */
  patch: string;
  /** The files the Apply changed (relative to `root`). */
  files: string[];
  /** Files of the patch the user's tree already had as the worker left them: the Apply did not write them. */
  exclude: string[];
  /** "2 files changed, +3 −1". */
  summary: string;
  at: number;
}

/** An undo refused by name: files changed since the Apply, or unsaved in the editor. Nothing was undone. */
export class UndoConflict extends Error {
  constructor(
    readonly changed: string[],
    readonly unsaved: string[],
  ) {
    const parts = [
      ...(unsaved.length ? [`unsaved in the editor (save or revert them first): ${unsaved.join(', ')}`] : []),
      ...(changed.length ? [`changed since the Apply: ${changed.join(', ')}`] : []),
    ];
    super(`Nothing was undone: ${parts.join('; ')}.`);
    this.name = 'UndoConflict';
  }
}

/** The files an undo puts back, as its question names them: the first 10, then how many more. */
export function namedFiles(files: readonly string[]): string {
  const named = files.slice(0, 10).join(', ');
  return files.length > 10 ? `${named} and ${files.length - 10} more` : named;
}

export class ApplyUndo {
  constructor(
    private readonly git: Git,
    private readonly storageDir: string,
    private readonly store: BatonStore,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  private get dir(): string {
    return join(this.storageDir, APPLIED_DIR);
  }

  /** Keeps the patch file `patchFile` (moved, not copied) as the undo of the worker's Apply; its earlier one goes. */
  async keep(rec: Omit<UndoRecord, 'patch' | 'at'>, patchFile: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const patch = `${rec.worker}-${randomBytes(6).toString('hex')}.patch`;
    await rename(patchFile, join(this.dir, patch));
    await this.drop(rec.worker);
    this.store.setState(KEY_PREFIX + rec.worker, JSON.stringify({ ...rec, patch, at: this.now() } satisfies UndoRecord));
    for (const old of this.list().slice(MAX_UNDOABLE_APPLIES)) await this.drop(old.worker);
  }

  /** The Applies that can be undone, the newest first. */
  list(): UndoRecord[] {
    return this.store
      .stateKeys(KEY_PREFIX)
      .flatMap((k) => {
        try {
          return [JSON.parse(this.store.getState(k) ?? '') as UndoRecord];
        } catch {
          this.store.deleteState(k);
          return [];
        }
      })
      .sort((a, b) => b.at - a.at);
  }

  get(worker: string): UndoRecord | undefined {
    return this.list().find((r) => r.worker === worker);
  }

  /** Takes the worker's last Apply back, all or nothing; UndoConflict names what stops it. `already`: nothing to write. */
  async undo(worker: string, dirtyBuffers: readonly string[]): Promise<UndoRecord & { already?: boolean }> {
    const rec = this.get(worker);
    if (!rec) throw new ChangeError(`There is no Apply of worker '${worker}' to undo (Baton keeps the last ${MAX_UNDOABLE_APPLIES}, one per worker).`);
    if (!existsSync(rec.root)) {
      await this.drop(worker);
      throw new ChangeError(`The Apply of worker '${worker}' cannot be undone: ${rec.root}, where it landed, is no longer there.`);
    }
    const patch = join(this.dir, rec.patch);
    // Undone meanwhile in another window (the store's copy here had not heard yet), or the file removed by hand.
    if (!existsSync(patch)) {
      await this.drop(worker);
      throw new ChangeError(`The Apply of worker '${worker}' cannot be undone: it was undone or let go meanwhile (another window?).`);
    }
    const dirty = new Set<string>();
    for (const p of dirtyBuffers) for (const key of await pathKeys(p)) dirty.add(key);
    const unsaved = rec.files.filter((f) => dirty.has(caseKey(resolve(rec.root, f))));
    const args = ['apply', '--whitespace=nowarn', '-R', ...rec.exclude.map((p) => `--exclude=${globEscape(p)}`)];
    const changed: string[] = [];
    if (!(await this.git.succeeds([...args, '--check', patch], { cwd: rec.root }))) {
      // Every file already as before the Apply (taken back by hand, or a window closed between git's undo and the
      // record's going): there is nothing to write, and "changed since the Apply" would name every file.
      if (await this.git.succeeds([...args.filter((a) => a !== '-R'), '--check', patch], { cwd: rec.root })) {
        await this.drop(worker);
        this.logger.info(`The Apply of worker '${worker}' (${rec.summary}) in ${rec.root} was already taken back`);
        return { ...rec, already: true };
      }
      for (const f of rec.files) if (!(await this.git.succeeds([...args, '--check', `--include=${globEscape(f)}`, patch], { cwd: rec.root }))) changed.push(f);
      // A failure no single file's check names (git refusing the patch itself): git's own words, as they are.
      if (!changed.length) await this.git.run([...args, '--check', patch], { cwd: rec.root });
    }
    if (unsaved.length || changed.length) throw new UndoConflict(changed, unsaved);
    try {
      await this.git.run([...args, patch], { cwd: rec.root });
    } catch (err) {
      // The tree changed between the check and the undo; git apply wrote nothing (it checks first).
      if (err instanceof GitError && err.kind === 'failed') throw new UndoConflict(rec.files, []);
      throw err;
    }
    await this.drop(worker);
    this.logger.info(`Undid the Apply of worker '${worker}' (${rec.summary}) in ${rec.root}`);
    return rec;
  }

  /**
   * At start: the patches no record names, once `olderThanMs` old (a window closed between keeping one and recording it;
   * a younger one may be another window's, about to be recorded).
   */
  async sweep(olderThanMs: number): Promise<void> {
    const named = new Set(this.list().map((r) => r.patch));
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const st = await stat(join(this.dir, name)).catch(() => undefined);
      if (!named.has(name) && st && this.now() - st.mtimeMs >= olderThanMs) await rm(join(this.dir, name), { force: true });
    }
  }

  /** Lets the worker's undo go (a later Apply of it that cannot be undone makes the earlier one out of order). */
  async drop(worker: string): Promise<void> {
    const old = this.get(worker);
    if (!old) return;
    this.store.deleteState(KEY_PREFIX + worker);
    await rm(join(this.dir, old.patch), { force: true });
  }
}
