// What Baton reads of git's porcelain output, parsed without git: `status --porcelain=v1 -z` and
// `worktree list --porcelain` (the Git class runs the commands; unit tests feed these parsers text).

/** One entry of `git status --porcelain=v1 -z`. `origPath` is set for renames and copies. */
export interface StatusEntry {
  /** The two status letters (index, worktree), e.g. ` M`, `??`, `R `. */
  code: string;
  path: string;
  origPath?: string;
}

/** One entry of `git worktree list --porcelain`. */
export interface WorktreeEntry {
  path: string;
  head?: string;
  /** The branch's short name (`baton/w1`), undefined when detached. */
  branch?: string;
  bare: boolean;
  detached: boolean;
  locked: boolean;
  prunable: boolean;
}

/** Parses `status --porcelain=v1 -z`: `XY path\0`, and for renames/copies a second `origPath\0`. */
export function parseStatusZ(out: string): StatusEntry[] {
  const parts = out.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p.length < 4) continue;
    const code = p.slice(0, 2);
    const entry: StatusEntry = { code, path: p.slice(3) };
    if (code[0] === 'R' || code[0] === 'C') entry.origPath = parts[++i];
    entries.push(entry);
  }
  return entries;
}

/** Parses `worktree list --porcelain`: one attribute per line, records separated by an empty line. */
export function parseWorktreeList(out: string): WorktreeEntry[] {
  const list: WorktreeEntry[] = [];
  let cur: WorktreeEntry | undefined;
  for (const line of out.split('\n')) {
    if (!line) {
      if (cur) list.push(cur);
      cur = undefined;
      continue;
    }
    const sp = line.indexOf(' ');
    const key = sp < 0 ? line : line.slice(0, sp);
    const value = sp < 0 ? '' : line.slice(sp + 1);
    if (key === 'worktree') {
      if (cur) list.push(cur);
      cur = { path: value, bare: false, detached: false, locked: false, prunable: false };
    } else if (cur) {
      if (key === 'HEAD') cur.head = value;
      else if (key === 'branch') cur.branch = value.replace(/^refs\/heads\//, '');
      else if (key === 'bare') cur.bare = true;
      else if (key === 'detached') cur.detached = true;
      else if (key === 'locked') cur.locked = true;
      else if (key === 'prunable') cur.prunable = true;
    }
  }
  if (cur) list.push(cur);
  return list;
}
