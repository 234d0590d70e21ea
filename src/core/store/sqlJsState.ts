// The state table (key → string value) on the store's tables, with the values read or written here kept in memory: a
// turn asks for the same few keys several times (its conversation's usage key, summarize policy, live reply), each a
// query otherwise. Bounded: STATE_CACHE_KEEP keys, the whole cache dropped past it. The store keeps the cache in step:
// `written` once an op is in (a rejected op changed nothing), `dropAll` when another window's file takes this one's place.
import type { SqlValue } from 'sql.js';
import { z } from 'zod';
import { STATE_CACHE_KEEP } from './bounds';
import type { SqlJsTables } from './sqlJsTables';

const READ_FAILED = Symbol('read failed');

export interface StateAccess {
  tables(): SqlJsTables;
  /** Throws when the store is closed. */
  assertOpen(): void;
  /** Runs a query, reporting a failure and returning `fallback` instead of throwing. */
  read<T>(query: () => T, fallback: T): T;
  reportBadRow(table: string, row: Record<string, SqlValue>, problem: string): void;
}

export class SqlJsState {
  /** Values as last read or written here, by key (undefined: no such row). */
  private readonly cache = new Map<string, string | undefined>();

  constructor(private readonly access: StateAccess) {}

  /** Keys the cache holds (its bound is tested). */
  get cachedKeys(): number {
    return this.cache.size;
  }

  keys(prefix: string): string[] {
    const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = this.access.read(
      () => this.access.tables().rows('state', "SELECT key FROM state WHERE key LIKE ? ESCAPE '\\' ORDER BY key", [like], z.object({ key: z.string() })),
      [],
    );
    return rows.map((r) => r.key);
  }

  get(key: string): string | undefined {
    if (this.cache.has(key)) {
      this.access.assertOpen();
      return this.cache.get(key);
    }
    const value = this.access.read<SqlValue | undefined | typeof READ_FAILED>(
      () => this.access.tables().first('SELECT value FROM state WHERE key = ?', [key])?.[0],
      READ_FAILED,
    );
    // A failed read is not remembered: the next one asks the database again.
    if (value === READ_FAILED) return undefined;
    if (value === undefined || value === null) return this.written(key, undefined);
    if (typeof value === 'string') return this.written(key, value);
    this.access.reportBadRow('state', { key, value }, 'value: expected a string');
    return undefined;
  }

  /** `key` now holds `value` (undefined: deleted), in the table this window reads. */
  written(key: string, value: string | undefined): string | undefined {
    if (this.cache.size >= STATE_CACHE_KEEP && !this.cache.has(key)) this.cache.clear();
    this.cache.set(key, value);
    return value;
  }

  /** The table changed in ways not named key by key (another window's file, a conversation's keys deleted). */
  dropAll(): void {
    this.cache.clear();
  }
}
