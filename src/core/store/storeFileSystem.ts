// The few file operations the store needs, behind an interface so tests can stop a flush between two steps
// (a "crash" after the temp file is written but before it is renamed) without touching the real disk layer.
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { readFileInPieces } from './readFileInPieces';

/**
 * File access used by SqlJsStore. Failures reject with Node-style errors carrying a `code`
 * (`ENOENT`, `EEXIST`, ...), since the store decides what to do from the code.
 */
export interface StoreFileSystem {
  readFile(path: string): Promise<Uint8Array>;
  /**
   * The same, synchronously: for opening the store, where nothing goes on until the bytes are there. An async read
   * of a large file goes through the thread pool in 512 KB pieces (about 25 hand-offs for 10 MB), each of which waits
   * for a CPU twice (the pool's thread, then the caller's) when the machine is busy (VS Code's start-up, other jobs).
   */
  readFileNow(path: string): Uint8Array;
  /** The first `length` bytes (fewer if the file is shorter), or undefined when the file does not exist. */
  readHead(path: string, length: number): Promise<Uint8Array | undefined>;
  /** Size and modification time, or undefined when the file does not exist. */
  stat(path: string): Promise<{ size: number; mtimeMs: number } | undefined>;
  /** Creates `path` (rejecting with EEXIST if it exists) and writes `data`; `durable` fsyncs before closing. */
  createFile(path: string, data: Uint8Array, durable: boolean): Promise<void>;
  /** Sets the modification time to now (the lease heartbeat). */
  touch(path: string): Promise<void>;
  /** Replaces `to` atomically. */
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(dir: string): Promise<string[]>;
  mkdir(dir: string): Promise<void>;
  /** Makes a rename inside `dir` durable; a no-op where directories cannot be fsynced (Windows). */
  syncDir(dir: string): Promise<void>;
}

export const nodeStoreFileSystem: StoreFileSystem = {
  readFile: (path) => readFile(path),
  readFileNow: (path) => readFileInPieces(path),
  async readHead(path, length) {
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  },
  async stat(path) {
    try {
      const s = await stat(path);
      return { size: s.size, mtimeMs: s.mtimeMs };
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined;
      throw err;
    }
  },
  async createFile(path, data, durable) {
    const handle = await open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
    try {
      await handle.writeFile(data);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
  },
  async touch(path) {
    const now = new Date();
    await utimes(path, now, now);
  },
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
  readdir: (dir) => readdir(dir),
  async mkdir(dir) {
    await mkdir(dir, { recursive: true });
  },
  async syncDir(dir) {
    if (process.platform === 'win32') return;
    let handle;
    try {
      handle = await open(dir, 'r');
      await handle.sync();
    } catch (err) {
      // Some file systems (network mounts) refuse to fsync a directory; the rename itself already happened.
      if (!['EINVAL', 'EPERM', 'EISDIR', 'EBADF'].includes(errorCode(err) ?? '')) throw err;
    } finally {
      await handle?.close();
    }
  },
};

export function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
