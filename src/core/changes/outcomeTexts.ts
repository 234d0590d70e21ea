// The sentences an Apply, a Keep as branch or a Discard adds to what it says it did: what stayed behind, what was left out.

/** ` <sentence>`, or nothing. */
export function also(sentence: string | undefined): string {
  return sentence ? ` ${sentence}` : '';
}

/** What the user is told of a worktree that could not be removed (PendingChangeSets.forget), or nothing. */
export function stayed(left: string | undefined): string {
  return left ? ` Its worktree could not be removed (${left}): Baton: Clean Up Orphaned Worktrees removes it once nothing holds it.` : '';
}
