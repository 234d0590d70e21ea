// git's raw diff with line counts, read into the changed files a summary, a review and an apply work from.
import type { FileChange, FileChangeStatus } from './changeSet';

// Raw diff's status letter → ours. T (type change, e.g. file → symlink) counts as a modification.
const STATUS: Record<string, FileChangeStatus> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted', R: 'renamed' };

/** Parses `diff-tree -z --raw --numstat`: all raw records (`:modes shas X\0path\0[new\0]`), then the numstat ones in the same order. */
export function parseRawNumstat(out: string): FileChange[] {
  const t = out.split('\0');
  const files: FileChange[] = [];
  let i = 0;
  while (i < t.length && t[i].startsWith(':')) {
    const letter = t[i].slice(t[i].lastIndexOf(' ') + 1)[0];
    const status = STATUS[letter] ?? 'modified';
    if (letter === 'R' || letter === 'C') {
      files.push({ path: t[i + 2], oldPath: t[i + 1], status, additions: 0, deletions: 0, binary: false });
      i += 3;
    } else {
      files.push({ path: t[i + 1], status, additions: 0, deletions: 0, binary: false });
      i += 2;
    }
  }
  for (const f of files) {
    const [a, d] = (t[i] ?? '').split('\t');
    // A rename's numstat record has an empty path field followed by the two paths.
    i += f.oldPath !== undefined ? 3 : 1;
    if (a === '-' || d === '-') f.binary = true;
    else {
      f.additions = Number(a) || 0;
      f.deletions = Number(d) || 0;
    }
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
