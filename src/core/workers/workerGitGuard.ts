// Git reads config and hooks from the `.git` of the folder it runs in, and Baton runs git in a worker's worktree outside
// its sandbox (its review, Apply, keep as a branch), as the user's own git and VS Code's do in their repository. Config
// can name programs git runs (core.fsmonitor, filters, hooks), so a `.git` a worker can write is a way out of the
// sandbox. Measured on the real runtime: a worker that pointed its worktree's `.git` file at a git folder of its own,
// whose core.fsmonitor named its script, had that script run by Baton's next git, unsandboxed; a worker working in place
// in the user's repository could write its hooks and config. So the `.git` in the worker's folder, when there is one
// (a worktree's own file, the user's repository in place), is read-only in the sandbox: it cannot be rewritten, moved or
// deleted (measured: EROFS, EBUSY). The Copilot runtime's own git runs with core.fsmonitor off (measured).
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `<dir>/.git` when it exists (a file, a folder or a link). */
export function gitIn(dir: string): string | undefined {
  const git = path.join(dir, '.git');
  return fs.lstatSync(git, { throwIfNoEntry: false }) ? git : undefined;
}
