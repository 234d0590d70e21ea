// What a bench section started and left running (a browser, code-server, a Copilot runtime) would load the machine
// for the sections after it, and their figures would read the leftover's CPU as their own. Each section must end
// with none: index.ts checks after every section and reports the section as failed when something is left.
import { readFileSync } from 'node:fs';
import { descendants } from '../test/support/leaks';

/** Running processes under this one, except the compile services the bench itself keeps (tsx's and the build's esbuild). */
export function runningDescendants(): Array<{ pid: number; cmd: string }> {
  return descendants().filter((p) => !/esbuild\S* --service=/.test(p.cmd) && !exited(p.pid));
}

/** A zombie (exited, not yet reaped by its parent) uses no CPU: it is not left running. */
function exited(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Waits up to `graceMs` for the section's processes to end (a browser's helpers exit just after it); what remains. */
export async function leftRunning(graceMs = 5_000): Promise<Array<{ pid: number; cmd: string }>> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const left = runningDescendants();
    if (!left.length || Date.now() >= deadline) return left;
    await new Promise((r) => setTimeout(r, 200));
  }
}
