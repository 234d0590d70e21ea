// A new, empty database at the newest schema. Running the migrations costs 20-60 ms of sql.js work on a quiet machine
// (each CREATE and ALTER re-parses the schema in wasm that has not warmed up yet), on the first message's path of a
// first start; loading the same database from its bytes costs 1-2 ms. So the build writes that database once
// (dist/baton-fresh.sqlite, see esbuild.mjs) and a store with no file starts from it.
import { readFileSync } from 'node:fs';
import type { Database, SqlJsStatic } from 'sql.js';
import { LATEST_VERSION, migrate, schemaVersion } from './migrations';

/** The bytes of a new database brought to the newest schema by the migrations: what the build ships. */
export function freshDatabaseImage(SQL: SqlJsStatic): Uint8Array {
  const db = new SQL.Database();
  try {
    migrate(db);
    return db.export();
  } finally {
    db.close();
  }
}

/**
 * A new database at the newest schema: from `imagePath` when it holds exactly that schema version, else by running
 * the migrations. An image that is missing, unreadable or of another version (a build that did not write it again)
 * costs only the time the migrations take, never a wrong schema.
 */
export function freshDatabase(SQL: SqlJsStatic, imagePath?: string): Database {
  if (imagePath !== undefined) {
    let db: Database | undefined;
    try {
      db = new SQL.Database(readFileSync(imagePath));
      if (schemaVersion(db) === LATEST_VERSION) return db;
    } catch {
      // Not a database this code can use: the migrations below build one.
    }
    db?.close();
  }
  const db = new SQL.Database();
  migrate(db);
  return db;
}
