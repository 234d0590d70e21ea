// The runtime's own temp folder. The runtime's sandbox makes a worker's TMPDIR visible and writable, and with none
// set that is the machine's /tmp (measured, runtime 1.0.85: a sandboxed worker listed /tmp and wrote to a unix socket
// there, as it could to an ssh-agent's /tmp/ssh-*/agent.* or the X server's /tmp/.X11-unix). So each runtime process
// gets a folder of its own (mode 0700, under the TMPDIR VS Code has, else the system's), removed when it stops; one
// that a window which died left behind is removed at the next start of any window's runtime (its name carries the
// extension host's pid). Bound: one folder per running runtime.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../util/processAlive';

const PREFIX = 'baton-runtime-';
const NAME = new RegExp(`^${PREFIX}(\\d+)-`);

/** Where runtime temp folders are made: `base` (the TMPDIR the runtime would have had), else the system's. */
export function runtimeTempBase(base: string | undefined): string {
  return base?.trim() ? base : tmpdir();
}

/** A new folder for one runtime process, 0700 (mkdtemp's own mode). */
export function createRuntimeTemp(base: string): Promise<string> {
  return mkdtemp(join(base, `${PREFIX}${process.pid}-`));
}

export async function removeRuntimeTemp(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

/** Removes the folders of runtimes whose window is gone (no process with the pid in its name); returns how many. */
export async function sweepRuntimeTemps(base: string, alive: (pid: number) => boolean = processAlive): Promise<number> {
  const names = await readdir(base).catch(() => [] as string[]);
  const dead = names.filter((name) => {
    const pid = NAME.exec(name)?.[1];
    return pid !== undefined && Number(pid) !== process.pid && !alive(Number(pid));
  });
  await Promise.all(dead.map((name) => removeRuntimeTemp(join(base, name))));
  return dead.length;
}
