// The runtime saves a tool result too large to hand to the model (over 20 KB: a worker's `npm test` log, say) as a file
// in its TMPDIR, `<ms>-copilot-tool-output-<pid>-<uuid>.txt`, and never deletes it (measured: a worker's `seq 1 20000`
// left one of 106 KB). A month of workers' test runs would leave hundreds in /tmp, which is memory (a tmpfs) on many
// systems. Baton deletes those of runtimes no longer running (the name carries the runtime's pid: no one can ask for
// them again) and its own runtime's once they are an hour old (a worker reads one right after it is saved).
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentSessions } from '../copilot/agentSessions';
import type { Logger } from '../util/logger';
import { processAlive } from '../util/processAlive';

const NAME = /^\d+-copilot-tool-output-(\d+)-[\w-]+\.txt$/;
/** The live runtime's saved results are kept this long. */
export const TOOL_OUTPUT_KEEP_MS = 3600_000;
/** How often the folder is swept while Baton runs (and once at start). */
const SWEEP_EVERY_MS = 10 * 60_000;

export interface ToolOutputSweep {
  /** A runtime's TMPDIR (its own, runtimeTemp.ts, or the machine's for other runtimes). */
  dir: string;
  /** The live runtime's pid: its files are kept TOOL_OUTPUT_KEEP_MS. */
  own: number | undefined;
  keepMs?: number;
  now?: number;
  alive?: (pid: number) => boolean;
}

/** Deletes the saved tool results no runtime can ask for again; returns how many. Only files of that name, never others. */
export async function sweepToolOutputs(o: ToolOutputSweep): Promise<number> {
  const names = await readdir(o.dir).catch(() => [] as string[]);
  const now = o.now ?? Date.now();
  const alive = o.alive ?? processAlive;
  let removed = 0;
  for (const name of names) {
    const pid = Number(NAME.exec(name)?.[1] ?? NaN);
    if (!Number.isInteger(pid)) continue;
    const path = join(o.dir, name);
    if (pid === o.own) {
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isFile() || now - info.mtimeMs < (o.keepMs ?? TOOL_OUTPUT_KEEP_MS)) continue;
    } else if (alive(pid)) continue;
    // Another user's file in a shared /tmp cannot be deleted (its sticky bit): that is not an error.
    const deleted = await unlink(path).then(
      () => true,
      () => false,
    );
    if (deleted) removed++;
  }
  return removed;
}

/** Sweeps the runtime's TMPDIR and the machine's now and every SWEEP_EVERY_MS until disposed. */
export function keepToolOutputsSwept(sessions: AgentSessions, logger: Logger): { dispose(): void } {
  const sweep = (): void => {
    for (const dir of sessions.toolOutputDirs())
      void sweepToolOutputs({ dir, own: sessions.runtimePid() })
        .then((n) => n && logger.info(`Deleted ${n} saved tool result(s) the Copilot runtime left in ${dir}`))
        .catch((err: unknown) => logger.warn(`Sweeping saved tool results failed: ${String(err)}`));
  };
  sweep();
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();
  return { dispose: () => clearInterval(timer) };
}
