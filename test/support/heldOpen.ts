// Holds the real runtime inside its next session open (create or resume), so a test can kill it, or press Stop, at
// exactly that moment. The runtime reads the permissions config of Baton's session folder (measured with strace:
// <sessionDirectory>/permissions-config.json, absent, read once by createSession and resumeSession before they answer).
// A FIFO put there makes that read wait for a writer: the test's own open for writing returns once the runtime is in
// the read, with the open's request in flight and unanswered. Released, the runtime reads an empty file and goes on;
// an open after that finds no file.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface HeldOpen {
  /** Resolves once the runtime is inside a session open, waiting on the held file. */
  readonly reached: Promise<void>;
  /** Lets the runtime (if still alive) finish the open, and removes the FIFO; safe to call twice. */
  release(): Promise<void>;
}

/** Holds the next session open of the runtime whose session folder is `sessionDirectory`; call before the open starts. */
export async function holdNextOpen(sessionDirectory: string): Promise<HeldOpen> {
  const fifo = join(sessionDirectory, 'permissions-config.json');
  // A runtime that has opened no session yet has not made its folder.
  await mkdir(sessionDirectory, { recursive: true });
  await promisify(execFile)('mkfifo', [fifo]);
  let writer: FileHandle | undefined;
  // Waits (in a thread of libuv's pool) until a reader opens the FIFO: the runtime, or release() below.
  const opening = open(fifo, 'w').then((handle) => (writer = handle));
  let released: Promise<void> | undefined;
  return {
    reached: opening.then(() => undefined),
    release() {
      released ??= (async () => {
        // Never reached: our own reader lets the writer's open return, so no thread of the pool stays blocked.
        const reader = writer ? undefined : await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
        // Gone before the writer closes: an open that came after the held one (another session's) would otherwise block
        // for good on a FIFO with no writer left; now it finds no file, as without the hold.
        await unlink(fifo);
        await (await opening).close();
        await reader?.close();
      })();
      return released;
    },
  };
}
