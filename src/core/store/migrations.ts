// Schema versions, keyed on PRAGMA user_version. Each migration runs in its own transaction and sets user_version
// inside it, so a failure rolls back to the previous version intact; the store then refuses to write the file.
import type { Database } from 'sql.js';
import { AREA_SCHEMA } from './areaOps';
import { memoryKey } from './memoryKey';
import { TITLE_MAX } from './conversationTitle';

export interface Migration {
  version: number;
  description: string;
  up(db: Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'state, conversation log, memories, workers, checkpoints, inbox',
    up(db) {
      db.exec(`
        CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE conversation_log (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          role TEXT NOT NULL CHECK(role IN ('user', 'assistant', 'system')),
          content TEXT NOT NULL,
          source TEXT NOT NULL DEFAULT 'unknown',
          status TEXT,
          meta TEXT,
          ts DATETIME DEFAULT CURRENT_TIMESTAMP
        );
        CREATE TABLE memories (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          category TEXT NOT NULL,
          content TEXT NOT NULL,
          source TEXT NOT NULL DEFAULT 'user' CHECK(source IN ('user', 'auto')),
          created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
          last_accessed DATETIME DEFAULT CURRENT_TIMESTAMP
        );
        CREATE TABLE worker_sessions (
          name TEXT NOT NULL UNIQUE,
          copilot_session_id TEXT,
          working_dir TEXT NOT NULL,
          status TEXT NOT NULL DEFAULT 'idle' CHECK(status IN ('idle', 'running', 'error')),
          last_output TEXT,
          origin TEXT NOT NULL DEFAULT 'unknown',
          created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
          updated_at DATETIME DEFAULT CURRENT_TIMESTAMP
        );
        CREATE TABLE checkpoints (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          turn_index INTEGER NOT NULL,
          fingerprint TEXT NOT NULL,
          route TEXT,
          status TEXT NOT NULL,
          ts DATETIME DEFAULT CURRENT_TIMESTAMP
        );
        CREATE TABLE inbox (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          worker_name TEXT NOT NULL,
          origin TEXT NOT NULL,
          kind TEXT NOT NULL CHECK(kind IN ('completed', 'failed', 'timed_out', 'killed')),
          content TEXT NOT NULL,
          delivered INTEGER NOT NULL DEFAULT 0,
          ts DATETIME DEFAULT CURRENT_TIMESTAMP
        );
        CREATE INDEX inbox_undelivered ON inbox(delivered, id);
      `);
    },
  },
  {
    version: 2,
    description: 'keyword search and duplicate detection for memories',
    up(db) {
      // `norm` is the duplicate key (see memoryKey); it is computed in JS, so existing rows are backfilled here.
      db.exec(`
        ALTER TABLE memories ADD COLUMN norm TEXT NOT NULL DEFAULT '';
        CREATE INDEX memories_norm ON memories(category, norm);
        CREATE VIRTUAL TABLE memories_fts USING fts4(content, tokenize=unicode61);
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
          INSERT INTO memories_fts(docid, content) VALUES (new.id, new.content);
        END;
        CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
          UPDATE memories_fts SET content = new.content WHERE docid = old.id;
        END;
        CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
          DELETE FROM memories_fts WHERE docid = old.id;
        END;
        INSERT INTO memories_fts(docid, content) SELECT id, content FROM memories;
      `);
      writeMemoryKeys(db);
    },
  },
  {
    version: 3,
    description: 'squads, the wiki index and usage totals',
    up(db) {
      db.exec(AREA_SCHEMA);
    },
  },
  {
    version: 4,
    description: "a finished worker's result card next to its inbox text",
    up(db) {
      // JSON of the card people read (shared/protocol.ts WorkerResultCard); the content column stays the model's text.
      db.exec('ALTER TABLE inbox ADD COLUMN result TEXT');
    },
  },
  {
    version: 5,
    description: 'several conversations: the log names its conversation, and a list of conversations',
    up(db) {
      // Every row written before belongs to the one conversation there was ('main', MAIN_CONVERSATION).
      db.exec(`
        ALTER TABLE conversation_log ADD COLUMN conversation TEXT NOT NULL DEFAULT 'main';
        CREATE INDEX conversation_log_conversation ON conversation_log(conversation, id);
        CREATE TABLE conversations (
          id TEXT PRIMARY KEY,
          title TEXT NOT NULL DEFAULT '',
          renamed INTEGER NOT NULL DEFAULT 0,
          created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
          last_activity DATETIME DEFAULT CURRENT_TIMESTAMP
        );
        CREATE INDEX conversations_activity ON conversations(last_activity);
        INSERT INTO conversations(id, title, created_at, last_activity)
          SELECT 'main',
            COALESCE((SELECT substr(content, 1, ${TITLE_MAX}) FROM conversation_log WHERE role = 'user' ORDER BY id LIMIT 1), ''),
            min(ts), max(ts)
          FROM conversation_log HAVING count(*) > 0;
      `);
    },
  },
  {
    version: 6,
    description: 'checkpoints per conversation, with token counts',
    up(db) {
      // Rows written before conversations existed belong to the one conversation there was.
      db.exec(`
        ALTER TABLE checkpoints ADD COLUMN conversation TEXT NOT NULL DEFAULT 'main';
        ALTER TABLE checkpoints ADD COLUMN input_tokens INTEGER;
        ALTER TABLE checkpoints ADD COLUMN output_tokens INTEGER;
        CREATE INDEX checkpoints_conversation ON checkpoints(conversation, id);
      `);
    },
  },
  {
    version: 7,
    description: 'the window that runs each worker',
    up(db) {
      // JSON of the window's stamp (pid, host, core instance): another window leaves a live window's workers alone.
      // Rows written before have none: taken as a window's that is gone, as every row was before.
      db.exec('ALTER TABLE worker_sessions ADD COLUMN owner TEXT');
    },
  },
  {
    version: 8,
    description: 'the duplicate key of a memory keeps its word order and symbols',
    up(db) {
      writeMemoryKeys(db);
    },
  },
];

/** Every memory's duplicate key (see memoryKey), computed in JS. */
function writeMemoryKeys(db: Database): void {
  const rows = db.exec('SELECT id, content FROM memories')[0]?.values ?? [];
  const update = db.prepare('UPDATE memories SET norm = ? WHERE id = ?');
  try {
    for (const [id, content] of rows) update.run([memoryKey(String(content)), id]);
  } finally {
    update.free();
  }
}

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export class MigrationError extends Error {
  constructor(
    readonly version: number,
    readonly description: string,
    override readonly cause: unknown,
  ) {
    super(`migration to schema version ${version} (${description}) failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'MigrationError';
  }
}

export function schemaVersion(db: Database): number {
  return Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
}

/**
 * Brings `db` up to the newest version it knows; returns the versions it went from and to. A file written by a newer
 * Baton (another window already updated) is left as it is: its extra tables and columns do not bother this code.
 * Throws MigrationError, with `db` rolled back to the last version that succeeded.
 */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): { from: number; to: number } {
  const from = schemaVersion(db);
  let current = from;
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.exec('BEGIN');
    try {
      migration.up(db);
      db.exec(`PRAGMA user_version = ${migration.version}`);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw new MigrationError(migration.version, migration.description, err);
    }
    current = migration.version;
  }
  return { from, to: current };
}
