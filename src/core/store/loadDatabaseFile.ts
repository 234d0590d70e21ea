// Turning a file's bytes into a usable database, and the revision stamp in its header.
import type { Database, SqlJsStatic } from 'sql.js';
import { LATEST_VERSION, migrate, MigrationError } from './migrations';
import { errorMessage } from './storeFileSystem';

/** Enough of the file to read its header, revision included. */
export const HEADER_BYTES = 100;
const SQLITE_MAGIC = 'SQLite format 3\0';
const MAX_REVISION = 0x7fffffff;

export type LoadedFile =
  | { kind: 'ok'; db: Database; revision: number | undefined; migrated: boolean; newerSchema: number | undefined }
  | { kind: 'corrupt'; reason: string }
  | { kind: 'migrationFailed'; error: MigrationError };

/**
 * Opens, checks and migrates a database file's bytes. Synchronous, so a caller can swap it in for its current
 * database without a write slipping in between. A file written by a newer Baton is used as it is.
 * `thorough` adds PRAGMA quick_check, which reads every page (most of the cost of opening a large file): for a file of
 * unknown history at start-up, and for one another window wrote before it is taken in (a damaged one taken in was
 * written back with a fresh digest, and the next start could not open it: databaseFile.ts).
 */
export function loadDatabaseFile(SQL: SqlJsStatic, bytes: Uint8Array, opts: { thorough: boolean }): LoadedFile {
  if (!hasSqliteHeader(bytes) || bytes.length < HEADER_BYTES) {
    return { kind: 'corrupt', reason: bytes.length === 0 ? 'the file is empty' : 'the file is not an SQLite database' };
  }
  const expected = declaredSize(bytes);
  if (expected !== undefined && bytes.length < expected) {
    return { kind: 'corrupt', reason: `the file is truncated (${bytes.length} of ${expected} bytes)` };
  }
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
    // A damaged file opens fine and fails later, on some query; find out now, while it can still be set aside.
    db.exec('SELECT count(*) FROM sqlite_master');
    if (opts.thorough) {
      const verdict = db.exec('PRAGMA quick_check(1)')[0]?.values[0]?.[0];
      if (verdict !== 'ok') throw new Error(String(verdict ?? 'quick_check gave no answer'));
    }
  } catch (err) {
    db?.close();
    return { kind: 'corrupt', reason: errorMessage(err) };
  }
  try {
    const { from, to } = migrate(db);
    return { kind: 'ok', db, revision: readRevision(bytes), migrated: from !== to, newerSchema: from > LATEST_VERSION ? from : undefined };
  } catch (err) {
    db.close();
    if (err instanceof MigrationError) return { kind: 'migrationFailed', error: err };
    return { kind: 'corrupt', reason: errorMessage(err) };
  }
}

/**
 * The revision a file was written as, or undefined for bytes that are not an SQLite file. It lives in the header's
 * application_id so that another window can tell whether the file changed from its first 100 bytes alone.
 */
export function readRevision(head: Uint8Array): number | undefined {
  if (head.length < 72 || !hasSqliteHeader(head)) return undefined;
  return new DataView(head.buffer, head.byteOffset, head.byteLength).getInt32(68);
}

/**
 * The revision to write after `current`. A new file starts at a random one, so a file deleted and created again by
 * another window is not mistaken for the one this window loaded.
 */
export function nextRevision(current: number | undefined, random: (min: number, max: number) => number): number {
  return current === undefined ? random(1, MAX_REVISION) : (current % MAX_REVISION) + 1;
}

// The header's page count is trustworthy only when the change counter matches the "version valid for" field.
function declaredSize(head: Uint8Array): number | undefined {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(24) !== view.getUint32(92)) return undefined;
  const pageSize = view.getUint16(16) === 1 ? 65536 : view.getUint16(16);
  const pages = view.getUint32(28);
  return pageSize && pages ? pageSize * pages : undefined;
}

function hasSqliteHeader(bytes: Uint8Array): boolean {
  return bytes.length >= 16 && new TextDecoder().decode(bytes.subarray(0, 16)) === SQLITE_MAGIC;
}
