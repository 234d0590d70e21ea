// The shapes Baton persists, and the store's role as the rest of core sees it.
// Implemented by SqlJsStore (sql.js on disk); nothing here knows about sql.js or VS Code.
import type { SquadStore, UsageStore, WikiIndexStore } from './areaTypes';

export type LogRole = 'user' | 'assistant' | 'system';
/** pending: user side written, reply not settled yet (a crash leaves it so → "interrupted" on start). */
export type LogStatus = 'pending' | 'complete' | 'partial' | 'failed' | 'cancelled' | 'interrupted';

/** The conversation every log row written before there were several belongs to. */
export const MAIN_CONVERSATION = 'main';

/**
 * Every state key a conversation has of its own. A conversation that goes (deleted, or pushed out by the bound) takes
 * them with it; MAIN_CONVERSATION's have no suffix to be found by, so they are found by these names (a saved session
 * left behind would be resumed by the next message to 'main': the model would see a history the panel no longer has).
 */
export const CONVERSATION_STATE_NAMES = [
  'orchestrator_session_id',
  'orchestrator_fingerprint',
  'orchestrator_pending_context',
  'compaction_mark',
  'summarize_policy',
  'router_state',
  'conversation_live',
  'usage_conversation',
] as const;
export type ConversationStateName = (typeof CONVERSATION_STATE_NAMES)[number];

/**
 * A state key of one conversation: `key` itself for MAIN_CONVERSATION (the key it had before there were several),
 * `key@id` for the others. Deleting a conversation deletes its keys.
 */
export function conversationStateKey(key: ConversationStateName, conversation: string): string {
  return conversation === MAIN_CONVERSATION ? key : `${key}@${conversation}`;
}

/** What watching the log needs of a row (no content): who wrote it for whom, and how it stands. */
export type LogHead = Pick<LogEntry, 'id' | 'role' | 'status' | 'meta'>;

export interface LogEntry {
  id: number;
  /** The conversation the row belongs to. */
  conversation: string;
  role: LogRole;
  content: string;
  source: string;
  status: LogStatus | null;
  /** JSON text with extra facts about a reply (route, model, usage), or null. */
  meta: string | null;
  ts: string;
}

export type MemoryCategory = 'preference' | 'fact' | 'project' | 'person' | 'routine';
export const MEMORY_CATEGORIES: readonly MemoryCategory[] = ['preference', 'fact', 'project', 'person', 'routine'];
export type MemorySource = 'user' | 'auto';

export interface Memory {
  id: number;
  category: MemoryCategory;
  content: string;
  source: MemorySource;
  created_at: string;
  last_accessed: string;
}

export type WorkerStatus = 'idle' | 'running' | 'error';

/** A worker row as written: its times are the store's; a row without an owner is a window's that is gone. */
export type WorkerRowInput = Omit<WorkerRow, 'created_at' | 'updated_at' | 'owner'> & { owner?: string | null };

export interface WorkerRow {
  name: string;
  copilot_session_id: string | null;
  working_dir: string;
  status: WorkerStatus;
  last_output: string | null;
  /** Where the request that started the worker came from (panel, command), so its result goes back there. */
  origin: string;
  /** The window that runs it (JSON of its pid, host and core instance: workers/workerOwner.ts); null before schema 7. */
  owner: string | null;
  created_at: string;
  updated_at: string;
}

/** A conversation as the list shows it; the message count is counted from the log, never stored. */
export interface ConversationRow {
  id: string;
  /** The first words of its first message, or what the user renamed it to; '' before the first message. */
  title: string;
  /** The user named it: its first message no longer sets the title. */
  renamed: boolean;
  created_at: string;
  last_activity: string;
  messages: number;
}

export interface CheckpointRow {
  id: number;
  conversation: string;
  turn_index: number;
  fingerprint: string;
  route: string | null;
  status: string;
  input_tokens: number | null;
  output_tokens: number | null;
  ts: string;
}

/** What a settled turn writes to the checkpoints table. */
export interface CheckpointInput {
  conversation: string;
  turn_index: number;
  fingerprint: string;
  route: string | null;
  status: string;
  input_tokens?: number | null;
  output_tokens?: number | null;
}

export interface InboxRow {
  id: number;
  worker_name: string;
  origin: string;
  kind: 'completed' | 'failed' | 'timed_out' | 'killed';
  content: string;
  /** The result card as JSON (people read it); null in rows from before schema 4. */
  result: string | null;
  delivered: 0 | 1;
  ts: string;
}

/** Which part of the store changed. */
export type StoreChange = 'conversations' | 'log' | 'memories' | 'workers' | 'state' | 'inbox' | 'checkpoints' | 'squads' | 'wiki' | 'usage';

/**
 * What a store report is about, so callers decide what to show from this, never from the message text.
 * - moved-aside: the file was unreadable and was renamed (the message names where);
 * - save-failed: a write to disk failed (it is retried; on close it is lost);
 * - not-saving: the file could not be migrated or read, so this window's changes stay in memory only;
 * - read-failed: a query on the in-memory database failed;
 * - saved-again: saving works again after save-failed;
 * - bad-row: a row read back did not fit its schema and was skipped;
 * - newer-schema: the file comes from a newer Baton (used as it is);
 * - change-dropped: one of this window's changes could not be applied on top of another window's file.
 */
export type StoreReportKind = 'moved-aside' | 'save-failed' | 'not-saving' | 'read-failed' | 'saved-again' | 'bad-row' | 'newer-schema' | 'change-dropped';

/** A problem the store met and survived (a bad row skipped, a corrupt file moved aside). */
export interface StoreReport {
  level: 'info' | 'warning' | 'error';
  kind: StoreReportKind;
  /** True when the user should see it now (their data is not being saved, or was moved); the rest belongs in a log. */
  userMustAct: boolean;
  message: string;
}

export interface BatonStore {
  // key/value state
  getState(key: string): string | undefined;
  /** The keys of the state table that start with `prefix`, sorted. */
  stateKeys(prefix: string): string[];
  setState(key: string, value: string): void;
  deleteState(key: string): void;

  // conversation log (every method acts on one conversation; default MAIN_CONVERSATION)
  /**
   * Returns the new entry's id at once, before it is on disk. Ids grow in time order but are not small counters.
   * If another window's write forces the entry to a new id, the id returned here keeps reaching it.
   * The conversation's row is created if missing; its first user message gives it its title.
   */
  appendLog(entry: { role: LogRole; content: string; source?: string; status?: LogStatus | null; meta?: string | null; conversation?: string }): number;
  /** Fields left out of `patch` keep their value; `meta: null` clears it. */
  updateLog(id: number, patch: { content?: string; status?: LogStatus; meta?: string | null }): void;
  /** Removes one entry (a message withdrawn before it was sent). */
  deleteLog(id: number): void;
  /** The newest `limit` entries of `conversation`, oldest first. */
  recentLog(limit: number, conversation?: string): LogEntry[];
  /** The entries with these ids that still exist (of any conversation), oldest first. */
  logRows(ids: readonly number[]): LogEntry[];
  /**
   * The newest `limit` of your messages and Baton's replies, in every conversation, whose text holds `text` (ASCII
   * letters in either case; every other character as it is), newest first.
   */
  searchLog(text: string, limit: number): LogEntry[];
  /** recentLog without the content: the newest `limit` rows' ids, roles, statuses and metas, oldest first. */
  logHeads(limit: number, conversation?: string): LogHead[];
  /**
   * Marks 'pending' user entries of `conversation` as 'interrupted' and returns them: every one, or those `which` picks
   * (the ones whose window is gone, when several windows share the log).
   */
  markInterrupted(which?: (entry: LogEntry) => boolean, conversation?: string): LogEntry[];
  clearLog(conversation?: string): void;

  // conversations (bounded: the CONVERSATIONS_KEEP most recently active)
  /** Creates the conversation if it does not exist (untitled, active now). */
  createConversation(id: string): void;
  /** Every conversation, most recently active first, with its message count. */
  listConversations(): ConversationRow[];
  /** False when there is no such conversation. */
  renameConversation(id: string, title: string): boolean;
  /** Removes the conversation and its log. */
  deleteConversation(id: string): void;
  /**
   * Names the conversations this window uses (the one shown, those open or answering): the bound never pushes them
   * out (storeOps.ts pruneConversations). Asked at each write that may push some out.
   */
  keepInUse(inUse: () => Iterable<string>): void;

  // checkpoints (append-only, pruned to the newest CHECKPOINT_KEEP per conversation)
  addCheckpoint(row: CheckpointInput): void;
  /** The newest `limit` checkpoints of `conversation`, oldest first. */
  recentCheckpoints(conversation: string, limit: number): CheckpointRow[];

  // long-term memory
  /**
   * Saves a memory unless the category already holds one with the same words (ignoring case, punctuation and order):
   * then that one is returned with `duplicate: true` (and becomes the user's if `source` is 'user').
   */
  addMemory(category: MemoryCategory, content: string, source: MemorySource): { memory: Memory; duplicate: boolean };
  /** Matches by word prefix or substring, most recently used first (default limit 50); bumps their last_accessed. */
  searchMemories(query: { keyword?: string; category?: MemoryCategory; limit?: number }): Memory[];
  /** The memories that best match `text` by full-text rank (any of its words), best first; not counted as a use. */
  relevantMemories(text: string, limit: number): Memory[];
  /** False when there is no such memory (or the text is empty). */
  updateMemory(id: number, content: string): boolean;
  /** False when there is no such memory. */
  deleteMemory(id: number): boolean;
  /** Every memory, by id; does not count as a use. */
  listMemories(): Memory[];

  // workers
  upsertWorker(row: WorkerRowInput): void;
  deleteWorker(name: string): void;
  listWorkers(): WorkerRow[];

  // results of workers not yet delivered to the orchestrator
  addInbox(row: { worker_name: string; origin: string; kind: InboxRow['kind']; content: string; result?: string }): number;
  markInboxDelivered(id: number): void;
  undeliveredInbox(): InboxRow[];

  // squads, the wiki's full-text index, usage totals (see areaTypes.ts)
  readonly squads: SquadStore;
  readonly wikiIndex: WikiIndexStore;
  readonly usage: UsageStore;

  /** Writes pending changes to disk now (also done debounced after every write). */
  flush(): Promise<void>;
  /** PRAGMA integrity_check's answer: ['ok'] when sound, otherwise the problems found. */
  integrityCheck(): string[];
  /**
   * Fires after any write: from this instance, or (`fromOtherWindow`) when another window's writes were loaded. For a
   * log write of this instance that names its rows (append, update, delete, mark interrupted), `rows` are their ids;
   * without `rows`, any row may have changed.
   */
  onDidChange(listener: (what: StoreChange, fromOtherWindow: boolean, rows?: readonly number[]) => void): () => void;
  close(): Promise<void>;
}
