// Long-term memory on the store's tables: one memory per set of words in a category (memoryKey), keyword search
// through FTS4 plus a substring match, and a cap on the memories Baton noted on its own.
//
// Memory ids are the small counters users see ("#12"), so unlike log ids two windows can hand out the same one; a
// replay then moves one row and IssuedIds keeps the issuer's id reaching it until a listing shows that id for
// another row (see issuedIds.ts).
import type { SqlValue } from 'sql.js';
import { USER_MEMORIES_MAX } from './bounds';
import { MemoryFullError } from './memoryFullError';
import type { IssuedIds } from './issuedIds';
import { ftsAnyQuery, ftsQuery, ftsWords, memoryKey } from './memoryKey';
import { z } from 'zod';
import { bm25 } from './bm25';
import { memoryRowSchema, sqliteTimestamp } from './rowSchemas';
import type { SqlJsTables } from './sqlJsTables';
import type { IssuingTable, StoreOp } from './storeOps';
import { MEMORY_CATEGORIES, type Memory, type MemoryCategory, type MemorySource } from './types';

/** Words too common to say a memory matches a message. */
const STOP_WORDS = new Set(
  'the and for are but not you your with this that from have has had was were what which when where who how why does did can could would should will about into than then them they there these those its our out use'.split(
    ' ',
  ),
);

const rankedMemorySchema = memoryRowSchema.extend({ mi: z.instanceof(Uint8Array) });
const countSchema = z.object({ n: z.number() });

/** What a table's code needs from the store it is part of. */
export interface TableAccess {
  /** The current database (replaced when another window's file is loaded). */
  readonly tables: SqlJsTables;
  /** Applies and journals one write. */
  commit(op: StoreOp): void;
  /** Runs a query, reporting a failure and returning `fallback` instead of throwing. */
  read<T>(query: () => T, fallback: T): T;
  freshId(table: IssuingTable): number;
  /** VACUUMs the database if most of it is free pages (after a large delete). */
  compactIfSparse(): void;
}

export class SqlJsMemories {
  constructor(
    private readonly access: TableAccess,
    private readonly ids: IssuedIds,
    private readonly maxAuto: number,
  ) {}

  add(category: MemoryCategory, content: string, source: MemorySource): { memory: Memory; duplicate: boolean } {
    if (!MEMORY_CATEGORIES.includes(category)) throw new TypeError(`unknown memory category "${String(category)}"`);
    if (source !== 'user' && source !== 'auto') throw new TypeError(`unknown memory source "${String(source)}"`);
    const text = content.trim();
    if (!text) throw new TypeError('a memory needs some text');
    const existing = this.access.read(
      () =>
        this.access.tables.rows(
          'memories',
          'SELECT id, category, content, source, created_at, last_accessed FROM memories WHERE category = ? AND norm = ? ORDER BY id LIMIT 1',
          [category, memoryKey(text)],
          memoryRowSchema,
        ),
      [],
    )[0];
    const ts = sqliteTimestamp();
    if (existing) {
      this.ids.listed(existing.id);
      // Asked by the user to keep what Baton had only noted: it becomes the user's, safe from the auto cap.
      const promote = source === 'user' && existing.source === 'auto' && !this.userFull();
      this.access.commit({ op: 'touchMemories', targets: [this.ids.ref(existing.id)], ts, promoteToUser: promote });
      return { memory: { ...existing, source: promote ? 'user' : existing.source, last_accessed: ts }, duplicate: true };
    }
    if (source === 'user' && this.userFull()) throw new MemoryFullError(USER_MEMORIES_MAX);
    const id = this.access.freshId('memories');
    this.access.commit({ op: 'addMemory', issued: id, category, content: text, source, ts, autoCap: this.maxAuto });
    return { memory: { id, category, content: text, source, created_at: ts, last_accessed: ts }, duplicate: false };
  }

  private userFull(): boolean {
    const counted = this.access.read(
      () => this.access.tables.rows('memories', "SELECT COUNT(*) AS n FROM memories WHERE source = 'user'", [], countSchema),
      [{ n: 0 }],
    );
    return (counted[0]?.n ?? 0) >= USER_MEMORIES_MAX;
  }

  /** Matching memories, most recently used first; counts as a use (last_accessed is bumped). */
  search(query: { keyword?: string; category?: MemoryCategory; limit?: number }): Memory[] {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (query.category) {
      where.push('category = ?');
      params.push(query.category);
    }
    const keyword = query.keyword?.trim();
    if (keyword) {
      // Word-prefix search through FTS, plus a substring match so "script" still finds "TypeScript".
      const like = `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const match = ftsQuery(keyword);
      if (match) {
        where.push("(id IN (SELECT docid FROM memories_fts WHERE memories_fts MATCH ?) OR content LIKE ? ESCAPE '\\')");
        params.push(match, like);
      } else {
        where.push("content LIKE ? ESCAPE '\\'");
        params.push(like);
      }
    }
    params.push(query.limit ?? 50);
    const found = this.access.read(
      () =>
        this.access.tables.rows(
          'memories',
          `SELECT id, category, content, source, created_at, last_accessed FROM memories ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY last_accessed DESC, id DESC LIMIT ?`,
          params,
          memoryRowSchema,
        ),
      [],
    );
    if (!found.length) return [];
    for (const m of found) this.ids.listed(m.id);
    const ts = sqliteTimestamp();
    this.access.commit({ op: 'touchMemories', targets: found.map((m) => this.ids.ref(m.id)), ts, promoteToUser: false });
    return found.map((m) => ({ ...m, last_accessed: ts }));
  }

  /**
   * The memories that best match `text` by full-text rank (BM25 over any of its words), best first, at most `limit`.
   * Not counted as a use: a turn reads these on every message, and a write per turn is not worth the recency.
   */
  relevant(text: string, limit: number): Memory[] {
    // Any of the message's words that carry meaning (a memory sharing only "the" with it is no match).
    const words = ftsWords(ftsQuery(text) ?? '').filter((w) => w.length > 2 && !STOP_WORDS.has(w));
    if (!words.length || limit <= 0) return [];
    const any = ftsAnyQuery(words);
    const rows = this.access.read(
      () =>
        this.access.tables.rows(
          'memories',
          `SELECT m.id AS id, m.category AS category, m.content AS content, m.source AS source, m.created_at AS created_at,
                  m.last_accessed AS last_accessed, matchinfo(memories_fts, 'pcnx') AS mi
           FROM memories_fts JOIN memories m ON m.id = memories_fts.docid WHERE memories_fts MATCH ?`,
          [any],
          rankedMemorySchema,
        ),
      [],
    );
    return rows
      .map((r) => ({
        memory: { id: r.id, category: r.category, content: r.content, source: r.source, created_at: r.created_at, last_accessed: r.last_accessed },
        score: bm25(r.mi),
      }))
      .sort((a, b) => b.score - a.score || b.memory.id - a.memory.id)
      .slice(0, limit)
      .map((r) => r.memory);
  }

  update(id: number, content: string): boolean {
    const text = content.trim();
    const target = this.ids.ref(id);
    if (!text || !this.exists(this.ids.resolve(target))) return false;
    this.access.commit({ op: 'updateMemory', target, content: text });
    return true;
  }

  delete(id: number): boolean {
    const target = this.ids.ref(id);
    if (!this.exists(this.ids.resolve(target))) return false;
    this.access.commit({ op: 'deleteMemory', target });
    return true;
  }

  list(): Memory[] {
    const all = this.access.read(
      () =>
        this.access.tables.rows('memories', 'SELECT id, category, content, source, created_at, last_accessed FROM memories ORDER BY id', [], memoryRowSchema),
      [],
    );
    for (const m of all) this.ids.listed(m.id);
    return all;
  }

  private exists(id: number): boolean {
    return this.access.read(() => this.access.tables.number('SELECT count(*) FROM memories WHERE id = ?', [id]) > 0, false);
  }
}
