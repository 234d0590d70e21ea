// Diagnostic for note ¹⁰: replays the store section of the bench (its flush figures, then the 10 MB file's opens)
// and prints, for every open, the read's and the hash's time, the process's minor page faults, the kernel's dirty
// and writeback pages, and the CPU every thread of the process used meanwhile.
// With --fresh N, each open is instead the first in a new process, as an extension host's is (after sql.js is loaded).
// `node --import tsx bench/traceStoreOpen.ts [--no-flushes] [--opens N] [--fresh N]`
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { loadSqlJs } from '../src/core/store/loadSqlJs';
import { SqlJsStore } from '../src/core/store/sqlJsStore';
import { nodeStoreFileSystem } from '../src/core/store/storeFileSystem';
import { digestNow } from '../src/core/store/fileDigest';
import { seeded, withDir } from './store.bench';

const args = process.argv.slice(2);
const opens = Number(args[args.indexOf('--opens') + 1] || 5) || 5;
const flushes = !args.includes('--no-flushes');
const fresh = args.includes('--fresh') ? Number(args[args.indexOf('--fresh') + 1]) || 5 : 0;
const child = args.includes('--child') ? args[args.indexOf('--child') + 1] : undefined;

function meminfo(): string {
  const text = readFileSync('/proc/meminfo', 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return `dirty ${(kb('Dirty') / 1024).toFixed(1)} MB wb ${(kb('Writeback') / 1024).toFixed(1)} MB`;
}

function vmrss(): string {
  const text = readFileSync('/proc/self/status', 'utf8');
  return `rss ${(Number(/VmRSS:\s+(\d+)/.exec(text)?.[1]) / 1024).toFixed(0)} MB`;
}

/** utime+stime in clock ticks for every thread, by tid (name). */
function threads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = /\((.*)\)/.exec(stat)?.[1] ?? '?';
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${tid}:${name}`, Number(rest[11]) + Number(rest[12]));
    } catch {
      /* gone */
    }
  }
  return out;
}

function threadDelta(before: Map<string, number>, after: Map<string, number>): string {
  const parts: string[] = [];
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0) parts.push(`${k}+${d * 10}ms`);
  }
  return parts.join(' ') || '-';
}

/** The store's file system with its open's read timed: `readMs()` is the time spent in it so far. */
function timedReads(): { fs: typeof nodeStoreFileSystem; readMs: () => number } {
  let ms = 0;
  const fs = {
    ...nodeStoreFileSystem,
    readFileNow: (p: string) => {
      const t = performance.now();
      const bytes = nodeStoreFileSystem.readFileNow(p);
      ms += performance.now() - t;
      return bytes;
    },
  };
  return { fs, readMs: () => ms };
}

/** One open in this process, of the file in `dir`: its time, its read's and its faults. */
async function openOnce(dir: string): Promise<string> {
  const { fs, readMs } = timedReads();
  const f0 = process.resourceUsage().minorPageFault;
  const t0 = performance.now();
  const store = await SqlJsStore.open({ dir, pollIntervalMs: 0, onReport: () => undefined, fs });
  const openMs = performance.now() - t0;
  const faults = process.resourceUsage().minorPageFault - f0;
  await store.close();
  return `open ${openMs.toFixed(1)} ms (read ${readMs().toFixed(1)}) faults ${faults}`;
}

async function main(): Promise<void> {
  await loadSqlJs();
  if (child) return console.log(await openOnce(child));
  if (fresh) {
    return withDir(async (dir) => {
      await (await seeded(dir, 200, 'x'.repeat(50 * 1024))).close();
      const times: number[] = [];
      for (let i = 0; i < fresh; i++) {
        const line = execFileSync(process.execPath, [...process.execArgv, __filename, '--child', dir], { encoding: 'utf8' }).trim();
        times.push(Number(/open ([\d.]+)/.exec(line)?.[1]));
        console.log(line);
      }
      console.log(`median ${times.sort((a, b) => a - b)[times.length >> 1].toFixed(1)} ms`);
    });
  }
  if (flushes) {
    await withDir(async (dir) => {
      const store = await seeded(dir, 10_000);
      for (let i = 0; i < 15; i++) {
        store.setState('bench', String(i));
        await store.flush();
      }
      await store.close();
    });
    for (const rows of [1_000, 10_000]) {
      await withDir(async (dir) => {
        const store = await seeded(dir, rows);
        for (let i = 0; i < 5; i++) {
          store.setState('bench', String(i));
          await store.flush();
        }
        await store.close();
      });
    }
  }
  await withDir(async (dir) => {
    const seed = await seeded(dir, 200, 'x'.repeat(50 * 1024));
    await seed.close();
    const size = (await stat(seed.path)).size;
    console.log(`file ${(size / 2 ** 20).toFixed(1)} MB; ${meminfo()} ${vmrss()}`);
    for (let i = 0; i < opens; i++) {
      const { fs, readMs } = timedReads();
      const mem = meminfo();
      const f0 = process.resourceUsage().minorPageFault;
      const th0 = threads();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const store = await SqlJsStore.open({ dir, pollIntervalMs: 0, onReport: () => undefined, fs });
      const openMs = performance.now() - t0;
      const cpu = process.cpuUsage(c0);
      const f1 = process.resourceUsage().minorPageFault;
      const th1 = threads();
      await store.close();
      // the same two steps alone, right after
      const t1 = performance.now();
      const bytes = readFileSync(seed.path);
      const t2 = performance.now();
      digestNow(bytes);
      const t3 = performance.now();
      const f2 = process.resourceUsage().minorPageFault;
      console.log(
        `open ${openMs.toFixed(1)} ms (read ${readMs().toFixed(1)}) faults ${f1 - f0} cpu ${(cpu.user / 1000).toFixed(0)}+${(cpu.system / 1000).toFixed(0)} ms; readFileSync then hash: read ${(t2 - t1).toFixed(1)} hash ${(t3 - t2).toFixed(1)} faults ${f2 - f1}; before: ${mem}; ${vmrss()}; threads ${threadDelta(th0, th1)}`,
      );
    }
  });
}

void main();
