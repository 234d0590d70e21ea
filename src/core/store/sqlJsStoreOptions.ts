// How to open a SqlJsStore: its folder, file, timings and bounds.
import type { FlushStats } from './databaseFile';
import type { StoreFileSystem } from './storeFileSystem';
import type { StoreReport } from './types';

/** How to open a SqlJsStore. */
export interface SqlJsStoreOptions {
  /** The folder that holds the database (the extension's globalStorage). Created if missing. */
  dir: string;
  /** sql-wasm.wasm; the bundle ships it as dist/sql-wasm.wasm. Default: next to sql.js's own script. */
  wasmPath?: string;
  /** The empty database at the newest schema (the bundle ships dist/baton-fresh.sqlite). Default: the migrations build it. */
  freshImagePath?: string;
  /** Default 'baton.sqlite'. */
  fileName?: string;
  /** At most this long between a write and its flush. Default 250 ms. */
  flushDelayMs?: number;
  /** Problems the store survived (a bad row, a corrupt file moved aside, a failed flush). */
  onReport?: (r: StoreReport) => void;
  /** File access (tests inject faults). Default: node:fs. */
  fs?: StoreFileSystem;
  /** False keeps every conversation_log row (benchmarks need 10 k+ rows). Default true: the newest 200. */
  pruneLog?: boolean;
  /** How often to look for another window's writes; 0 turns it off. Default 2000 ms. */
  pollIntervalMs?: number;
  /** A lease whose heartbeat is older than this is taken over. Default 10 s. */
  leaseStaleMs?: number;
  /** How long a flush waits for another window's lease before retrying later. Default 15 s. */
  leaseTimeoutMs?: number;
  /** Memories Baton saved on its own ('auto') beyond this many are dropped, least recently used first. Default 200. */
  maxAutoMemories?: number;
  /** Called after every write to disk (diagnostics, benchmarks). */
  onFlush?: (stats: FlushStats) => void;
}
