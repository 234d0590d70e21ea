// One open sql.js database with its prepared statements. Statements are prepared once and reused, because parsing
// SQL costs more than running these small statements; they die with the database (a reload makes a new SqlJsTables).
import type { BindParams, Database, SqlValue, Statement } from 'sql.js';
import type { z } from 'zod';

export type BadRowHandler = (table: string, row: Record<string, SqlValue>, problem: string) => void;

export class SqlJsTables {
  private readonly statements = new Map<string, Statement>();
  /** Each prepared statement's column names, read once (sql.js's getAsObject reads them again for every row). */
  private readonly columnNames = new Map<string, string[]>();
  private savepointDepth = 0;

  constructor(
    readonly db: Database,
    private readonly onBadRow: BadRowHandler,
  ) {}

  /** Runs a writing statement; returns how many rows it changed (not counting trigger work). */
  run(sql: string, params: BindParams = []): number {
    this.statement(sql).run(params);
    return this.db.getRowsModified();
  }

  /** The first row, or undefined. */
  first(sql: string, params: BindParams = []): SqlValue[] | undefined {
    const stmt = this.statement(sql);
    try {
      stmt.bind(params);
      return stmt.step() ? stmt.get() : undefined;
    } finally {
      // An unreset statement keeps a read open, which makes VACUUM and export() fail.
      stmt.reset();
    }
  }

  number(sql: string, params: BindParams = []): number {
    const value = this.first(sql, params)?.[0];
    return typeof value === 'number' ? value : 0;
  }

  /** The first column of every row. */
  column(sql: string, params: BindParams = []): SqlValue[] {
    const stmt = this.statement(sql);
    const out: SqlValue[] = [];
    try {
      stmt.bind(params);
      while (stmt.step()) out.push(stmt.get()[0] ?? null);
    } finally {
      stmt.reset();
    }
    return out;
  }

  /** Rows that pass `schema`; the others are reported and left out. */
  rows<T>(table: string, sql: string, params: BindParams, schema: z.ZodType<T>): T[] {
    const stmt = this.statement(sql);
    const out: T[] = [];
    try {
      stmt.bind(params);
      let names = this.columnNames.get(sql);
      if (!names) this.columnNames.set(sql, (names = stmt.getColumnNames()));
      while (stmt.step()) {
        const values = stmt.get();
        const raw: Record<string, SqlValue> = {};
        for (let i = 0; i < names.length; i++) raw[names[i]!] = values[i] ?? null;
        const parsed = schema.safeParse(raw);
        if (parsed.success) out.push(parsed.data);
        else this.onBadRow(table, raw, parsed.error.issues.map((i) => `${i.path.join('.') || 'row'}: ${i.message}`).join('; '));
      }
    } finally {
      stmt.reset();
    }
    return out;
  }

  /** Runs `fn` atomically (a savepoint, so it nests inside a replay's transaction). */
  atomic<T>(fn: () => T): T {
    const name = `sp${this.savepointDepth++}`;
    // Prepared once per depth, like every statement here (exec would parse them again on every write).
    this.run(`SAVEPOINT ${name}`);
    try {
      const result = fn();
      this.run(`RELEASE ${name}`);
      return result;
    } catch (err) {
      this.db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
      throw err;
    } finally {
      this.savepointDepth--;
    }
  }

  close(): void {
    // Database.close() frees every statement prepared on it.
    this.statements.clear();
    this.columnNames.clear();
    this.db.close();
  }

  private statement(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }
}
