// The sentences an Apply, a Keep as branch or a Discard adds to what it says it did: what stayed behind, what was left out.

/** ` <sentence>`, or nothing. */
export function also(sentence: string | undefined): string {
  return sentence ? ` ${sentence}` : '';
}

/** What the user is told of a worktree that could not be removed (PendingChangeSets.forget), or nothing. */
export function stayed(left: string | undefined): string {
  return left ? ` Its worktree could not be removed (${left}): Baton: Clean Up Orphaned Worktrees removes it once nothing holds it.` : '';
}

/** How many files a sentence names; the rest are counted. */
const MAX_NAMED = 10;

/** Files an Apply found already in the user's tree exactly as the worker left them (patchFile.ts, conflictingFiles), or nothing. */
export function alreadyThere(paths: readonly string[] | undefined): string {
  if (!paths?.length) return '';
  const more = paths.length - MAX_NAMED;
  return ` Already in your tree as the worker left ${paths.length === 1 ? 'it' : 'them'}, so left as ${paths.length === 1 ? 'it was' : 'they were'}: ${paths.slice(0, MAX_NAMED).join(', ')}${more > 0 ? ` and ${more} more` : ''}.`;
}
