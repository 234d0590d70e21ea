// Reading a file that someone else may have made something else than a file: Baton's own code, outside any sandbox,
// reads what a worker wrote (its worktree) or what a repository holds (a skill's folder). A link there would carry the
// read elsewhere, and a FIFO's open waits for a writer for ever (holding one of the few threads all of the extension
// host's file reads share). POSIX's O_NOFOLLOW and O_NONBLOCK (0 elsewhere) keep the open itself from doing either.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** What is at a path: its text, nothing, something that is not a file of its own (a link, a FIFO, a folder), or too much. */
export type OwnFile = { kind: 'text'; text: string } | { kind: 'absent' } | { kind: 'not-a-file' } | { kind: 'too-large'; bytes: number };

/** The regular file at `file` (its last part not a link), read when it holds at most `maxBytes`. */
export async function readOwnFile(file: string, maxBytes = Number.POSITIVE_INFINITY): Promise<OwnFile> {
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const handle = await open(file, flags).catch((err: NodeJS.ErrnoException) => err);
  if (handle instanceof Error) return handle.code === 'ENOENT' || handle.code === 'ENOTDIR' ? { kind: 'absent' } : { kind: 'not-a-file' };
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { kind: 'not-a-file' };
    if (info.size > maxBytes) return { kind: 'too-large', bytes: info.size };
    return { kind: 'text', text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}
