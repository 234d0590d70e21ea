// What integration tests start that must be gone when they end: scripted servers, temp folders, and the Copilot
// runtime processes this process spawned. The fixtures register what they make; the root hook in leakCheck.ts fails
// the run when anything is left (mocha's --exit would otherwise hide it by ending the process).
import { existsSync, readdirSync, readFileSync } from 'node:fs';

interface Tracked {
  /** The test that made it (its full title), to say who left it. */
  by: string;
}

let currentTest = '(outside a test)';
const servers = new Map<{ isClosed(): boolean; url: string }, Tracked>();
const dirs = new Map<string, Tracked>();

export function setCurrentTest(title: string): void {
  currentTest = title;
}

export function trackServer(server: { isClosed(): boolean; url: string }): void {
  servers.set(server, { by: currentTest });
}

export function trackTempDir(dir: string): void {
  dirs.set(dir, { by: currentTest });
}

/** Process ids whose parent chain reaches `root`, with their command lines (Linux /proc; elsewhere none). */
export function descendants(root = process.pid): Array<{ pid: number; cmd: string }> {
  if (!existsSync('/proc')) return [];
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(entry), ppid);
    } catch {
      /* gone meanwhile */
    }
  }
  const found: Array<{ pid: number; cmd: string }> = [];
  for (const pid of parent.keys()) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p !== root) continue;
      let cmd = '';
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      } catch {
        /* gone meanwhile */
      }
      found.push({ pid, cmd });
      break;
    }
  }
  return found;
}

/** The Copilot runtime processes this process started and that still run. */
export function runtimeProcesses(): Array<{ pid: number; cmd: string }> {
  return descendants().filter((p) => /copilot/i.test(p.cmd));
}

/** What is left: open servers, temp folders still on disk, runtime processes still running. Empty when clean. */
export function leftovers(): string[] {
  const left: string[] = [];
  for (const [server, t] of servers) if (!server.isClosed()) left.push(`scripted server ${server.url} still listening (started by "${t.by}")`);
  for (const [dir, t] of dirs) if (existsSync(dir)) left.push(`temp folder ${dir} still on disk (made by "${t.by}")`);
  for (const p of runtimeProcesses()) left.push(`runtime process ${p.pid} still running: ${p.cmd.slice(0, 120)}`);
  return left;
}
