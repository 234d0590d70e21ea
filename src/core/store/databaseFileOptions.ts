// What a DatabaseFile is given: where its file is and how to reach it, its timings and reporters, and the hooks through
// which its owner gives meaning to its ops.
import type { BadRowHandler } from './sqlJsTables';
import type { StoreFileSystem } from './storeFileSystem';
import type { StoreReporter } from './storeReporter';

/** What one write to disk cost. */
export interface FlushStats {
  /** Size of the file written. */
  bytes: number;
  /** Time the extension host's thread was blocked: loading another window's file, replaying, exporting. */
  blockingMs: number;
  /** From the start of the flush to the rename, waiting for the lease and the disk included. */
  totalMs: number;
  /** Whether another window had written, so its file was loaded and this window's changes applied on top. */
  merged: boolean;
}

export interface DatabaseFileOptions {
  dir: string;
  fileName: string;
  fs: StoreFileSystem;
  flushDelayMs: number;
  /** 0 turns polling for other windows' writes off. */
  pollIntervalMs: number;
  leaseStaleMs: number;
  leaseTimeoutMs: number;
  reporter: StoreReporter;
  onBadRow: BadRowHandler;
  onFlush?: (stats: FlushStats) => void;
  /** The empty database at the newest schema, loaded instead of running the migrations (see freshDatabase.ts). */
  freshImagePath?: string;
}

/** How the owner of a DatabaseFile gives meaning to its ops. */
export interface DatabaseFileHooks<Op> {
  /** Applies `op` to the current database; `replaying` when it is applied again on another window's file. Throws to reject it. */
  apply(op: Op, replaying: boolean): void;
  /** `op` is in the journal: applied in memory, not yet on disk. */
  journaled(op: Op): void;
  /** `op` left the journal: it is on disk, or a replay dropped it. */
  settled(op: Op): void;
  /** A new database took the current one's place; anything cached about the old one is stale. */
  installed(): void;
  /** Another window's file became the database (with the journal applied on top). */
  reloaded(): void;
}
