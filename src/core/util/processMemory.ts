// How much memory another process holds (its resident set), read the cheapest way each platform offers.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Whether this platform can read another process's RSS cheaply, and why not when it cannot. */
export type RssSupport = { available: true } | { available: false; reason: string };

export function rssSupport(platform: NodeJS.Platform = process.platform): RssSupport {
  if (platform === 'linux' || platform === 'darwin' || platform === 'freebsd' || platform === 'openbsd') return { available: true };
  // Windows has no file or light command for it: a native module, or a PowerShell start (~0.3–1 s of CPU) per reading.
  return { available: false, reason: `reading the runtime's memory is not supported on ${platform} (only the session count restarts it)` };
}

/** The resident set of `pid` in bytes; undefined when the process is gone or the platform cannot say (rssSupport). */
export async function residentBytes(pid: number, platform: NodeJS.Platform = process.platform): Promise<number | undefined> {
  if (platform === 'linux') {
    // One small read of the kernel's own figure (VmRSS, in kB), about 0.1 ms.
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
    const kb = status && /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  }
  if (!rssSupport(platform).available) return undefined;
  // macOS and the BSDs have no /proc: ps prints the RSS in kB (one short process, ~10 ms, only when Baton goes idle).
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'rss=', '-p', String(pid)], { timeout: 5000 }, (err, stdout) => {
      const kb = Number(stdout.trim());
      resolve(err || !Number.isFinite(kb) || kb <= 0 ? undefined : kb * 1024);
    });
  });
}
