// The writes of the squads, wiki index and usage areas, as data (see storeOps.ts for why every write is an op).
// None of them hands out an id a caller keeps: squads and agents are keyed by name, wiki pages by folder and name,
// usage by day, scope and key. So a replay on another window's file needs no IssuedIds; an added usage is added
// again on top of the other window's totals, which is what both windows meant.
import { SQUAD_DECISIONS_KEEP, SQUAD_TASKS_KEEP, USAGE_DAYS_KEEP } from './bounds';
import type { SqlJsTables } from './sqlJsTables';
import type { AgentTier, UsageDelta } from './areaTypes';

export type AreaOp =
  | { op: 'createSquad'; name: string; project_dir: string; universe: string; ts: string }
  | { op: 'deleteSquad'; name: string }
  | { op: 'addAgent'; squad: string; name: string; role: string; charter: string; tier: AgentTier; ts: string }
  | { op: 'removeAgent'; squad: string; name: string }
  | { op: 'logDecision'; squad: string; content: string; author: string | null; ts: string }
  | { op: 'recordTask'; worker: string; squad: string; agent: string | null; prompt: string; ts: string }
  | { op: 'upsertWikiPage'; folder: string; name: string; title: string; body: string; mtime_ms: number; size: number }
  | { op: 'removeWikiPage'; folder: string; name: string }
  | { op: 'removeWikiFolder'; folder: string }
  | { op: 'addUsage'; day: string; deltas: UsageDelta[] };

export type AreaChange = 'squads' | 'wiki' | 'usage';

export function isAreaOp(op: { op: string }): op is AreaOp {
  return AREA_OPS.has(op.op);
}

const AREA_OPS = new Set<string>([
  'createSquad',
  'deleteSquad',
  'addAgent',
  'removeAgent',
  'logDecision',
  'recordTask',
  'upsertWikiPage',
  'removeWikiPage',
  'removeWikiFolder',
  'addUsage',
]);

export function areaChangeKind(op: AreaOp): AreaChange {
  switch (op.op) {
    case 'upsertWikiPage':
    case 'removeWikiPage':
    case 'removeWikiFolder':
      return 'wiki';
    case 'addUsage':
      return 'usage';
    default:
      return 'squads';
  }
}

/** Applies one op; returns how many rows it changed. */
export function applyAreaOp(t: SqlJsTables, op: AreaOp): number {
  switch (op.op) {
    case 'createSquad':
      return t.run('INSERT OR IGNORE INTO squads(name, project_dir, universe, created_at) VALUES (?, ?, ?, ?)', [op.name, op.project_dir, op.universe, op.ts]);
    case 'deleteSquad':
      return t.atomic(() => {
        t.run('DELETE FROM squad_agents WHERE squad = ?', [op.name]);
        t.run('DELETE FROM squad_decisions WHERE squad = ?', [op.name]);
        t.run('DELETE FROM squad_tasks WHERE squad = ?', [op.name]);
        return t.run('DELETE FROM squads WHERE name = ?', [op.name]);
      });
    case 'addAgent':
      return t.run('INSERT OR IGNORE INTO squad_agents(squad, name, role, charter, tier, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        op.squad,
        op.name,
        op.role,
        op.charter,
        op.tier,
        op.ts,
      ]);
    case 'removeAgent':
      return t.run('DELETE FROM squad_agents WHERE squad = ? AND name = ?', [op.squad, op.name]);
    case 'logDecision':
      return t.atomic(() => {
        const n = t.run('INSERT INTO squad_decisions(squad, content, author, ts) VALUES (?, ?, ?, ?)', [op.squad, op.content, op.author, op.ts]);
        t.run('DELETE FROM squad_decisions WHERE squad = ? AND id < (SELECT id FROM squad_decisions WHERE squad = ? ORDER BY id DESC LIMIT 1 OFFSET ?)', [
          op.squad,
          op.squad,
          SQUAD_DECISIONS_KEEP - 1,
        ]);
        return n;
      });
    case 'recordTask':
      return t.atomic(() => {
        // A worker name is reused once its worker finished: the newest task owns it.
        const n = t.run(
          `INSERT INTO squad_tasks(worker, squad, agent, prompt, started_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(worker) DO UPDATE SET squad = excluded.squad, agent = excluded.agent, prompt = excluded.prompt, started_at = excluded.started_at`,
          [op.worker, op.squad, op.agent, op.prompt, op.ts],
        );
        t.run('DELETE FROM squad_tasks WHERE rowid NOT IN (SELECT rowid FROM squad_tasks ORDER BY started_at DESC, rowid DESC LIMIT ?)', [SQUAD_TASKS_KEEP]);
        return n;
      });
    case 'upsertWikiPage':
      return t.atomic(() => {
        const n = t.run(
          `INSERT INTO wiki_pages(folder, name, title, mtime_ms, size) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(folder, name) DO UPDATE SET title = excluded.title, mtime_ms = excluded.mtime_ms, size = excluded.size`,
          [op.folder, op.name, op.title, op.mtime_ms, op.size],
        );
        const id = t.number('SELECT id FROM wiki_pages WHERE folder = ? AND name = ?', [op.folder, op.name]);
        t.run('DELETE FROM wiki_fts WHERE docid = ?', [id]);
        t.run('INSERT INTO wiki_fts(docid, title, body) VALUES (?, ?, ?)', [id, op.title, op.body]);
        return n;
      });
    case 'removeWikiPage':
      return t.atomic(() => {
        const id = t.number('SELECT id FROM wiki_pages WHERE folder = ? AND name = ?', [op.folder, op.name]);
        if (!id) return 0;
        t.run('DELETE FROM wiki_fts WHERE docid = ?', [id]);
        return t.run('DELETE FROM wiki_pages WHERE id = ?', [id]);
      });
    case 'removeWikiFolder':
      return t.atomic(() => {
        t.run('DELETE FROM wiki_fts WHERE docid IN (SELECT id FROM wiki_pages WHERE folder = ?)', [op.folder]);
        return t.run('DELETE FROM wiki_pages WHERE folder = ?', [op.folder]);
      });
    case 'addUsage':
      return t.atomic(() => {
        let n = 0;
        for (const d of op.deltas) {
          n += t.run(
            `INSERT INTO usage_totals(day, scope, key, input_tokens, output_tokens, premium_requests, requests) VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT(day, scope, key) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens,
               output_tokens = output_tokens + excluded.output_tokens, premium_requests = premium_requests + excluded.premium_requests,
               requests = requests + excluded.requests`,
            [op.day, d.scope, d.key, d.inputTokens, d.outputTokens, d.premiumRequests, d.requests],
          );
        }
        t.run('DELETE FROM usage_totals WHERE day < ?', [usageCutoff(op.day)]);
        return n;
      });
  }
}

/** The tables of these areas (one migration). */
export const AREA_SCHEMA = `
  CREATE TABLE squads (
    name TEXT PRIMARY KEY,
    project_dir TEXT NOT NULL,
    universe TEXT NOT NULL,
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP
  );
  CREATE TABLE squad_agents (
    squad TEXT NOT NULL,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    charter TEXT NOT NULL,
    tier TEXT NOT NULL CHECK(tier IN ('high', 'medium', 'low')),
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (squad, name)
  );
  CREATE TABLE squad_decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    squad TEXT NOT NULL,
    content TEXT NOT NULL,
    author TEXT,
    ts DATETIME DEFAULT CURRENT_TIMESTAMP
  );
  CREATE INDEX squad_decisions_squad ON squad_decisions(squad, id);
  CREATE TABLE squad_tasks (
    worker TEXT PRIMARY KEY,
    squad TEXT NOT NULL,
    agent TEXT,
    prompt TEXT NOT NULL,
    started_at DATETIME DEFAULT CURRENT_TIMESTAMP
  );
  CREATE TABLE wiki_pages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    folder TEXT NOT NULL,
    name TEXT NOT NULL,
    title TEXT NOT NULL,
    mtime_ms INTEGER NOT NULL,
    size INTEGER NOT NULL,
    UNIQUE (folder, name)
  );
  CREATE VIRTUAL TABLE wiki_fts USING fts4(title, body, tokenize=unicode61);
  CREATE TABLE usage_totals (
    day TEXT NOT NULL,
    scope TEXT NOT NULL CHECK(scope IN ('orchestrator', 'worker', 'squad')),
    key TEXT NOT NULL,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    premium_requests REAL NOT NULL DEFAULT 0,
    requests INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, scope, key)
  );
`;

/** The oldest day usage_totals keeps, counted back from `day` (YYYY-MM-DD); a day that does not parse prunes nothing. */
function usageCutoff(day: string): string {
  const t = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(t) ? new Date(t - USAGE_DAYS_KEEP * 86_400_000).toISOString().slice(0, 10) : '';
}
