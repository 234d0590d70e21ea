// Whether a process of this machine still runs: claims, the store's write lease and the runtime's saved tool results
// are kept while their process lives.

/** True while process `pid` exists, also when it belongs to another user (EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
