// The user's files whose version a "Resolve with the worker" replaced with the worker's: a conflict git cannot merge
// line by line (a binary, a link, a deletion on one side) that the worker settled by keeping its own version
// (conflictResolution.ts). Apply then puts that version over the user's uncommitted one without a conflict, so the
// confirm and the result name each such file: nothing the user wrote is overwritten unnamed. Kept with the change set's
// record (a reload keeps it), bounded; a file goes once it landed, and is named only while the change still holds it
// (a later task of the worker that put the user's version back replaces nothing).
import type { ChangeSet, ReplacedFiles } from './changeSet';

/** The most paths the record keeps (the rest are counted): a branch switch can conflict thousands of files. */
const MAX_KEPT = 200;
/** The most paths a sentence names (the rest are counted). */
const MAX_NAMED = 10;

/** `had` with `paths` added (a later resolution adds to an earlier one's, whose files may still be pending). */
export function withReplaced(had: ReplacedFiles | undefined, paths: readonly string[]): ReplacedFiles | undefined {
  const all = [...new Set([...(had?.paths ?? []), ...paths])];
  const more = (had?.more ?? 0) + Math.max(0, all.length - MAX_KEPT);
  if (!all.length && !more) return undefined;
  return { paths: all.slice(0, MAX_KEPT), ...(more ? { more } : {}) };
}

/** The change set once `landed` reached the user's tree: those files are no longer to be named. */
export function afterLanding(cs: ChangeSet, landed: readonly string[]): ChangeSet {
  const { replaces, ...rest } = cs;
  if (!replaces) return cs;
  const paths = replaces.paths.filter((p) => !landed.includes(p));
  return paths.length || replaces.more ? { ...rest, replaces: { ...replaces, paths } } : rest;
}

/** Of the recorded files, those an Apply of `files` (the change's now, or the ones it applied) puts over the user's. */
export function replacedAmong(had: ReplacedFiles | undefined, files: readonly string[], all: boolean): ReplacedFiles | undefined {
  if (!had) return undefined;
  const paths = had.paths.filter((p) => files.includes(p));
  // The paths past the bound are unknown: counted whenever the whole change is applied.
  const more = all ? (had.more ?? 0) : 0;
  return paths.length || more ? { paths, ...(more ? { more } : {}) } : undefined;
}

/** " It replaces your uncommitted changes to img.bin with the worker's version." ('' when none). */
export function replacedSentence(r: ReplacedFiles | undefined, tense: 'replaces' | 'replaced', note?: string): string {
  if (!r) return '';
  const more = Math.max(0, r.paths.length - MAX_NAMED) + (r.more ?? 0);
  const named = r.paths.slice(0, MAX_NAMED).join(', ') + (more > 0 ? ` and ${more} more` : '');
  const versions = r.paths.length + (r.more ?? 0) === 1 ? 'version' : 'versions';
  return ` It ${tense} your uncommitted changes to ${named} with the worker's ${versions}${note ? ` (${note})` : ''}.`;
}

/** What an Apply's result says of the user's files it replaced ('' when none). */
export function replacedByApply(r: { replaced?: ReplacedFiles; undoable?: boolean }): string {
  return replacedSentence(r.replaced, 'replaced', r.undoable ? 'Undo Apply puts them back' : undefined);
}
