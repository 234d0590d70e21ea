// The runtime's file-change tracking for a worker in place reports, besides the files the worker changed, files a
// command only read whose content changes by itself: measured (runtime 1.0.85), `grep VmRSS /proc/self/status` in a
// worker's command made the runtime list `../../../proc/self/status` (its own process's status, read twice) as a
// change, so a worker that changed nothing had "1 file changed" to review, apply or discard. Files under the kernel's
// pseudo file systems are never a worker's change.
import * as path from 'node:path';
import type { FileChange } from '../copilot/agentSessions';

const PSEUDO = ['/proc', '/sys', '/dev'];

/** `changes` without those under /proc, /sys and /dev (a path relative to `workingDir` resolved against it first). */
export function realFileChanges(changes: FileChange[], workingDir: string): FileChange[] {
  if (process.platform === 'win32') return changes;
  return changes.filter((c) => {
    const abs = path.posix.resolve(workingDir, c.path);
    return !PSEUDO.some((root) => abs === root || abs.startsWith(`${root}/`));
  });
}
