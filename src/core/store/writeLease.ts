// Exactly one window writes the database file at a time. The lease is a small file created with O_EXCL; its content
// names the owner (pid, host, a per-acquisition token) and its mtime is the heartbeat, refreshed while it is held.
// Staleness is judged from the mtime rather than from content because a reader can see the file between its creation
// and its first write (empty), and an empty lease must read as "held", not as "broken".
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { delay } from '../util/delay';
import { processAlive } from '../util/processAlive';
import { errorCode, type StoreFileSystem } from './storeFileSystem';

export interface WriteLeaseOptions {
  fs: StoreFileSystem;
  /** The lease file, next to the database. */
  path: string;
  /** A lease whose heartbeat is older than this is taken over. */
  staleMs: number;
  /** How long acquire() waits for a live holder before giving up. */
  timeoutMs: number;
  /** Whether a process on this host is still running (injectable for tests). */
  isAlive?: (pid: number) => boolean;
}

// What deleting the lease may meet for a moment (see release).
const TRANSIENT = ['EPERM', 'EACCES', 'EBUSY'];
// Refusals that mean the folder cannot be written, unless a lease file is in the way (see acquire).
const NOT_WRITABLE = ['EPERM', 'EACCES', 'EROFS'];
// On Windows a lease just deleted while someone still had it open refuses a create (EPERM) for a moment without being
// visible: a few short tries tell that from a folder that cannot be written, instead of the whole lease timeout.
const NOT_WRITABLE_TRIES = 5;

interface LeaseOwner {
  pid: number;
  host: string;
  token: string;
}

/** A held lease. `assertHeld` is called right before the commit point, so a writer that lost its lease never commits. */
export interface HeldLease {
  assertHeld(): Promise<void>;
  release(): Promise<void>;
}

export class LeaseTimeoutError extends Error {
  constructor(readonly holder: string) {
    super(`another window (${holder}) is holding the database write lease`);
    this.name = 'LeaseTimeoutError';
  }
}

/** The lease file cannot be created because its folder cannot be written (permissions, a read-only mount). */
export class FolderNotWritableError extends Error {
  constructor(
    readonly folder: string,
    readonly code: string,
    cause: unknown,
  ) {
    super(`the folder ${folder} cannot be written (${code})`, { cause });
    this.name = 'FolderNotWritableError';
  }
}

export class LeaseLostError extends Error {
  constructor() {
    super('the database write lease was taken over by another window before the write finished');
    this.name = 'LeaseLostError';
  }
}

export class WriteLease {
  private readonly isAlive: (pid: number) => boolean;

  constructor(private readonly opts: WriteLeaseOptions) {
    this.isAlive = opts.isAlive ?? processAlive;
  }

  async acquire(): Promise<HeldLease> {
    const { fs, path } = this.opts;
    const owner: LeaseOwner = { pid: process.pid, host: hostname(), token: randomUUID() };
    const content = new TextEncoder().encode(JSON.stringify(owner));
    const deadline = Date.now() + this.opts.timeoutMs;
    let refusals = 0;
    for (let attempt = 0; ; attempt++) {
      let refused: { code: string; err: unknown } | undefined;
      try {
        await fs.createFile(path, content, false);
        return this.held(owner);
      } catch (err) {
        const code = errorCode(err) ?? '';
        if (code !== 'EEXIST' && code !== 'EBUSY' && !NOT_WRITABLE.includes(code)) throw err;
        if (NOT_WRITABLE.includes(code)) refused = { code, err };
      }
      const holder = await this.inspect();
      if (!holder) {
        // Refused with no lease in the way: that is the error, not another window (see NOT_WRITABLE_TRIES).
        if (refused && ++refusals >= NOT_WRITABLE_TRIES) throw new FolderNotWritableError(dirname(path), refused.code, refused.err);
        // Released between our create and our look: try again, without spinning forever on a confused file system.
        if (Date.now() > deadline) throw new LeaseTimeoutError('unknown owner');
        await delay(refused ? 10 : 1);
        continue;
      }
      if (this.isStale(holder)) {
        await this.breakStale(owner.token);
        continue;
      }
      if (Date.now() > deadline) throw new LeaseTimeoutError(describe(holder.owner));
      // Holders keep the lease for one flush (milliseconds), so poll quickly, with jitter so windows do not align.
      await delay(Math.min(5 + attempt * 5, 50) + Math.random() * 10);
    }
  }

  private held(owner: LeaseOwner): HeldLease {
    const { fs, path } = this.opts;
    const heartbeat = setInterval(() => void fs.touch(path).catch(() => undefined), Math.max(50, this.opts.staleMs / 4));
    heartbeat.unref?.();
    return {
      assertHeld: async () => {
        const current = await this.inspect();
        if (current?.owner?.token !== owner.token) throw new LeaseLostError();
      },
      // Never throws: it runs in `finally` blocks, where an error would hide the one that matters.
      release: async () => {
        clearInterval(heartbeat);
        const current = await this.inspect().catch(() => undefined);
        // Never delete a lease that another window took over (it would then have no lease at all).
        if (current?.owner?.token !== owner.token) return;
        for (let attempt = 0; attempt < 5; attempt++) {
          try {
            await fs.unlink(path);
            return;
          } catch (err) {
            // A window reading the lease at this moment blocks the delete on Windows; otherwise others wait for staleness.
            if (!TRANSIENT.includes(errorCode(err) ?? '')) return;
            await delay(5 * (attempt + 1));
          }
        }
      },
    };
  }

  private async inspect(): Promise<{ owner?: LeaseOwner; mtimeMs: number } | undefined> {
    const { fs, path } = this.opts;
    const stat = await fs.stat(path);
    if (!stat) return undefined;
    let owner: LeaseOwner | undefined;
    try {
      owner = parseOwner(new TextDecoder().decode(await fs.readFile(path)));
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined;
    }
    return { owner, mtimeMs: stat.mtimeMs };
  }

  private isStale(holder: { owner?: LeaseOwner; mtimeMs: number }): boolean {
    const age = Date.now() - holder.mtimeMs;
    if (age > this.opts.staleMs) return true;
    // A holder writes its name in the same call that creates the lease: a nameless lease older than this was left by
    // a process killed in between (found by the SIGKILL test in CI: the next window waited the whole staleMs).
    if (!holder.owner && age > HALF_WRITTEN_GRACE_MS) return true;
    // A window that crashed on this machine is known dead at once; no need to wait for its heartbeat to age.
    const owner = holder.owner;
    return !!owner && owner.host === hostname() && owner.pid !== process.pid && !this.isAlive(owner.pid);
  }

  // Renaming is atomic, so of several windows breaking the same stale lease only one succeeds. A window that judged
  // the lease stale just before its holder was replaced may move a fresh lease aside; that holder then fails
  // assertHeld() before its commit and retries, so no write is lost.
  private async breakStale(token: string): Promise<void> {
    const { fs, path } = this.opts;
    const aside = `${path}.stale-${token}`;
    try {
      await fs.rename(path, aside);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return;
      throw err;
    }
    await fs.unlink(aside).catch(() => undefined);
  }
}

/** How long a lease without a readable owner counts as being written. */
const HALF_WRITTEN_GRACE_MS = 300;

function parseOwner(text: string): LeaseOwner | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, host, token } = value as Record<string, unknown>;
    if (typeof pid === 'number' && typeof host === 'string' && typeof token === 'string') return { pid, host, token };
  } catch {
    // half-written lease: held for HALF_WRITTEN_GRACE_MS, then stale
  }
  return undefined;
}

function describe(owner: LeaseOwner | undefined): string {
  return owner ? `pid ${owner.pid} on ${owner.host}` : 'unknown owner';
}
