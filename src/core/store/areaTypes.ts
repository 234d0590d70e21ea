// The shapes of the squads, wiki index and usage areas of the store, and the roles those areas play. Each area
// is its own file (sqlJsSquads.ts, sqlJsWikiIndex.ts, sqlJsUsage.ts) over the same database and journal.

/** A squad agent's model tier; mapped to Baton's routing tiers (high → premium, medium → standard, low → fast). */
export type AgentTier = 'high' | 'medium' | 'low';
export const AGENT_TIERS: readonly AgentTier[] = ['high', 'medium', 'low'];

export interface SquadRow {
  name: string;
  /** The project folder the squad works in (realpath-resolved when it was created). */
  project_dir: string;
  /** The character universe agent names come from. */
  universe: string;
  created_at: string;
}

export interface SquadAgentRow {
  squad: string;
  name: string;
  role: string;
  charter: string;
  tier: AgentTier;
  created_at: string;
}

export interface SquadDecisionRow {
  id: number;
  squad: string;
  content: string;
  author: string | null;
  ts: string;
}

/** A task a squad handed to a worker: which worker runs it, for which agent. */
export interface SquadTaskRow {
  worker: string;
  squad: string;
  agent: string | null;
  prompt: string;
  started_at: string;
}

export interface SquadStore {
  /** False when a squad of that name exists already; SquadsFullError past SQUADS_MAX (bounds.ts). */
  createSquad(row: { name: string; project_dir: string; universe: string }): boolean;
  getSquad(name: string): SquadRow | undefined;
  listSquads(): SquadRow[];
  /** Removes the squad with its agents, decisions and task records; false when there was none. */
  deleteSquad(name: string): boolean;
  /** False when the squad already has an agent of that name; SquadsFullError past SQUAD_AGENTS_MAX (bounds.ts). */
  addAgent(row: Omit<SquadAgentRow, 'created_at'>): boolean;
  removeAgent(squad: string, name: string): boolean;
  listAgents(squad: string): SquadAgentRow[];
  logDecision(squad: string, content: string, author: string | null): void;
  /** The newest `limit` decisions, newest first. */
  decisions(squad: string, limit: number): SquadDecisionRow[];
  countDecisions(squad: string): number;
  recordTask(row: Omit<SquadTaskRow, 'started_at'>): void;
  /** The newest tasks of a squad, newest first. */
  tasks(squad: string, limit: number): SquadTaskRow[];
}

export interface WikiIndexRow {
  name: string;
  title: string;
  mtime_ms: number;
  size: number;
}

export interface WikiHit {
  name: string;
  title: string;
  score: number;
  snippet: string;
}

/** The full-text index of one or more wiki folders; the markdown files stay the source of truth. */
export interface WikiIndexStore {
  indexed(folder: string): WikiIndexRow[];
  upsert(folder: string, page: WikiIndexRow & { body: string }): void;
  remove(folder: string, name: string): void;
  /** Every folder with pages in the index. */
  folders(): string[];
  /** Drops a folder's pages (the folder is gone). */
  removeFolder(folder: string): void;
  /** Best first; an empty list when nothing matches or the query has no words. */
  search(folder: string, query: string, limit: number): WikiHit[];
}

export type UsageScope = 'orchestrator' | 'worker' | 'squad';

export interface UsageDelta {
  scope: UsageScope;
  /** The worker's or squad's name; for the orchestrator, the conversation (its start time; 'orchestrator' before 0.x kept one). */
  key: string;
  inputTokens: number;
  outputTokens: number;
  /** Premium requests: each user request's model multiplier, once (callUsage.ts). */
  premiumRequests: number;
  /** User requests (turns, worker prompts), not model calls: a tool round is not a request. */
  requests: number;
}

export interface UsageRow {
  day: string;
  scope: UsageScope;
  key: string;
  input_tokens: number;
  output_tokens: number;
  premium_requests: number;
  requests: number;
}

export interface UsageQuery {
  day?: string;
  scope?: UsageScope;
  key?: string;
}

/** What the rows a query selects add up to. */
export type UsageSum = Omit<UsageRow, 'day' | 'scope' | 'key'>;

export interface UsageStore {
  /** Adds to the totals of `day` (UTC, YYYY-MM-DD; default today). */
  add(deltas: UsageDelta[], day?: string): void;
  totals(query?: UsageQuery): UsageRow[];
  /** The rows `query` selects added up by SQLite: what the header shows on every change of state reads no rows out. */
  sum(query?: UsageQuery): UsageSum;
}
