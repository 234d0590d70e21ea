// Every write the store accepts, as data. A write is applied to the in-memory database at once and kept in the
// journal until it is on disk; when another window changed the file meanwhile, the store loads that file and applies
// the journal again on top, so both windows' rows survive. An op therefore carries everything it needs to be applied
// twice with the same meaning: its timestamps, the ids it handed out, and row references frozen as RowRefs.
import { CONVERSATIONS_KEEP, INBOX_DELIVERED_KEEP, TOOL_CONVERSATION_PREFIX, TOOL_CONVERSATIONS_KEEP } from './bounds';
import { applyAreaOp, areaChangeKind, isAreaOp, type AreaOp } from './areaOps';
import type { IssuedIds, RowRef } from './issuedIds';
import { memoryKey } from './memoryKey';
import type { SqlJsTables } from './sqlJsTables';
import {
  CONVERSATION_STATE_NAMES,
  conversationStateKey,
  MAIN_CONVERSATION,
  type CheckpointRow,
  type InboxRow,
  type LogRole,
  type LogStatus,
  type MemoryCategory,
  type MemorySource,
  type StoreChange,
  type WorkerRowInput,
} from './types';

export type StoreOp =
  | { op: 'setState'; key: string; value: string }
  | { op: 'deleteState'; key: string }
  | {
      op: 'appendLog';
      issued: number;
      role: LogRole;
      content: string;
      source: string;
      status: LogStatus | null;
      meta: string | null;
      ts: string;
      /** Absent in ops journaled before there were several conversations: MAIN_CONVERSATION. */
      conversation?: string;
      /** When the conversation was last active, to the millisecond (absent in older ops: `ts`). */
      at?: string;
      /** The title a first message gives a conversation that has none ('' for other rows). */
      title?: string;
      keepConversations?: number;
      /** Conversations the writing window uses (shown, open, answering): never pushed out by this op (absent: none). */
      inUse?: string[];
    }
  | { op: 'updateLog'; target: RowRef; content?: string; status?: LogStatus; meta?: string | null }
  | { op: 'markInterrupted'; targets: RowRef[] }
  | { op: 'clearLog'; conversation?: string }
  | { op: 'deleteLog'; target: RowRef }
  | { op: 'pruneLog'; keep: number; conversation?: string }
  | { op: 'pruneLogBytes'; keep: number; newestAlways: number }
  | { op: 'createConversation'; id: string; ts: string; keep: number; inUse?: string[] }
  | { op: 'renameConversation'; id: string; title: string }
  | { op: 'deleteConversation'; id: string }
  | ({ op: 'addCheckpoint'; keep: number } & Omit<CheckpointRow, 'id'>)
  | { op: 'addMemory'; issued: number; category: MemoryCategory; content: string; source: MemorySource; ts: string; autoCap: number }
  | { op: 'touchMemories'; targets: RowRef[]; ts: string; promoteToUser: boolean }
  | { op: 'updateMemory'; target: RowRef; content: string }
  | { op: 'deleteMemory'; target: RowRef }
  | { op: 'upsertWorker'; row: WorkerRowInput; ts: string }
  | { op: 'deleteWorker'; name: string }
  | { op: 'addInbox'; issued: number; worker_name: string; origin: string; kind: InboxRow['kind']; content: string; result?: string; ts: string }
  | { op: 'markInboxDelivered'; target: RowRef }
  | AreaOp;

/** Tables whose ids the store hands out before the row is on disk. */
export type IssuingTable = 'conversation_log' | 'memories' | 'inbox';

export interface OpContext {
  tables: SqlJsTables;
  ids: Record<IssuingTable, IssuedIds>;
  /** A new id for `table`, above every id in it. */
  freshId(table: IssuingTable): number;
  /** True while the journal is applied again on a freshly loaded file. */
  replaying: boolean;
  /** State rows went with a conversation (their keys are not named one by one): any cached state is stale. */
  stateDropped?(): void;
}

/** Which change listeners care about an op. */
export function changeKind(op: StoreOp): StoreChange {
  if (isAreaOp(op)) return areaChangeKind(op);
  switch (op.op) {
    case 'setState':
    case 'deleteState':
      return 'state';
    case 'appendLog':
    case 'updateLog':
    case 'markInterrupted':
    case 'clearLog':
    case 'deleteLog':
    case 'pruneLog':
    case 'pruneLogBytes':
      return 'log';
    case 'createConversation':
    case 'renameConversation':
    case 'deleteConversation':
      return 'conversations';
    case 'addCheckpoint':
      return 'checkpoints';
    case 'addMemory':
    case 'touchMemories':
    case 'updateMemory':
    case 'deleteMemory':
      return 'memories';
    case 'upsertWorker':
    case 'deleteWorker':
      return 'workers';
    case 'addInbox':
    case 'markInboxDelivered':
      return 'inbox';
  }
}

/** The log rows an op of this window writes, when it names them (undefined: it may change any row, e.g. clear or prune). */
export function logRowsOf(op: StoreOp, ids: Record<IssuingTable, IssuedIds>): number[] | undefined {
  switch (op.op) {
    case 'appendLog':
      return [op.issued];
    case 'updateLog':
    case 'deleteLog':
      return [ids.conversation_log.resolve(op.target)];
    case 'markInterrupted':
      return op.targets.map((ref) => ids.conversation_log.resolve(ref));
    default:
      return undefined;
  }
}

/** The id an op handed out, if it is an insert that issues one. */
export function issuedBy(op: StoreOp): { table: IssuingTable; id: number } | undefined {
  switch (op.op) {
    case 'appendLog':
      return { table: 'conversation_log', id: op.issued };
    case 'addMemory':
      return { table: 'memories', id: op.issued };
    case 'addInbox':
      return { table: 'inbox', id: op.issued };
    default:
      return undefined;
  }
}

/** Applies one op; returns how many rows it changed. */
export function applyOp(ctx: OpContext, op: StoreOp): number {
  const t = ctx.tables;
  if (isAreaOp(op)) return applyAreaOp(t, op);
  switch (op.op) {
    case 'setState':
      return t.run('INSERT INTO state(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [op.key, op.value]);
    case 'deleteState':
      return t.run('DELETE FROM state WHERE key = ?', [op.key]);

    case 'appendLog':
      return t.atomic(() => {
        const conversation = op.conversation ?? MAIN_CONVERSATION;
        const id = placeInsert(ctx, 'conversation_log', op.issued);
        // Its first message makes it count against the bound: only then may it push out another with messages.
        const first = !t.first('SELECT 1 FROM conversation_log WHERE conversation = ? LIMIT 1', [conversation]);
        touchConversation(t, conversation, op.title ?? '', op.at ?? op.ts);
        if (first) pruneConversations(ctx, conversation, op.keepConversations ?? CONVERSATIONS_KEEP, op.inUse ?? [], false);
        return t.run('INSERT INTO conversation_log(id, conversation, role, content, source, status, meta, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
          id,
          conversation,
          op.role,
          op.content,
          op.source,
          op.status,
          op.meta,
          op.ts,
        ]);
      });
    case 'updateLog': {
      const id = ctx.ids.conversation_log.resolve(op.target);
      // COALESCE keeps a field the patch leaves out; meta may be set to null on purpose, hence the flag.
      return t.run(
        'UPDATE conversation_log SET content = COALESCE(?, content), status = COALESCE(?, status), meta = CASE WHEN ? THEN ? ELSE meta END WHERE id = ?',
        [op.content ?? null, op.status ?? null, op.meta !== undefined ? 1 : 0, op.meta ?? null, id],
      );
    }
    case 'markInterrupted': {
      let changed = 0;
      for (const ref of op.targets) {
        const id = ctx.ids.conversation_log.resolve(ref);
        changed += t.run("UPDATE conversation_log SET status = 'interrupted' WHERE id = ? AND status = 'pending'", [id]);
      }
      return changed;
    }
    case 'clearLog':
      return t.run('DELETE FROM conversation_log WHERE conversation = ?', [op.conversation ?? MAIN_CONVERSATION]);
    case 'deleteLog':
      return t.run('DELETE FROM conversation_log WHERE id = ?', [ctx.ids.conversation_log.resolve(op.target)]);
    case 'pruneLog': {
      const c = op.conversation ?? MAIN_CONVERSATION;
      return t.run(
        'DELETE FROM conversation_log WHERE conversation = ? AND id < (SELECT id FROM conversation_log WHERE conversation = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
        [c, c, op.keep - 1],
      );
    }

    case 'pruneLogBytes':
      // The newest rows of all conversations whose text, with every newer row's, fits in `keep` bytes stay, and each
      // conversation's newest `newestAlways` whatever their size. The user's own conversations' rows count first: a tool
      // call's conversations (another agent's, TOOL_CONVERSATION_PREFIX) lose theirs before any of the user's goes, as
      // they never push out the user's conversations by number. Computed on the table as it is (on a replay too).
      return t.run(
        `DELETE FROM conversation_log WHERE id IN (SELECT id FROM (
           SELECT id, SUM(octet_length(content)) OVER (ORDER BY substr(conversation, 1, ?) = ?, id DESC ROWS UNBOUNDED PRECEDING) AS newer,
                  ROW_NUMBER() OVER (PARTITION BY conversation ORDER BY id DESC) AS place
           FROM conversation_log) WHERE newer > ? AND place > ?)`,
        [TOOL_CONVERSATION_PREFIX.length, TOOL_CONVERSATION_PREFIX, op.keep, op.newestAlways],
      );

    case 'createConversation':
      // Opening an existing conversation is not activity in it: only a new one gets a row (and may push an old one out).
      return t.atomic(() => {
        const n = t.run("INSERT INTO conversations(id, title, renamed, created_at, last_activity) VALUES (?, '', 0, ?, ?) ON CONFLICT(id) DO NOTHING", [
          op.id,
          op.ts,
          op.ts,
        ]);
        // Still empty: it pushes out only other empty ones (an API call naming a new id never costs the user a conversation).
        if (n) pruneConversations(ctx, op.id, op.keep, op.inUse ?? [], true);
        return n;
      });
    case 'renameConversation':
      return t.run('UPDATE conversations SET title = ?, renamed = 1 WHERE id = ?', [op.title, op.id]);
    case 'deleteConversation':
      return t.atomic(() => dropConversations(ctx, [op.id]));

    case 'addCheckpoint':
      return t.atomic(() => {
        const n = t.run(
          'INSERT INTO checkpoints(conversation, turn_index, fingerprint, route, status, input_tokens, output_tokens, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          [op.conversation, op.turn_index, op.fingerprint, op.route, op.status, op.input_tokens, op.output_tokens, op.ts],
        );
        // Retention is per conversation: a busy conversation never pushes out another's history.
        t.run('DELETE FROM checkpoints WHERE conversation = ? AND id < (SELECT id FROM checkpoints WHERE conversation = ? ORDER BY id DESC LIMIT 1 OFFSET ?)', [
          op.conversation,
          op.conversation,
          op.keep - 1,
        ]);
        return n;
      });

    case 'addMemory':
      return t.atomic(() => {
        const norm = memoryKey(op.content);
        if (ctx.replaying) {
          // Another window may have remembered the same thing meanwhile: then ours becomes that one.
          const existing = t.number('SELECT id FROM memories WHERE category = ? AND norm = ? ORDER BY id LIMIT 1', [op.category, norm]);
          if (existing) {
            ctx.ids.memories.move(op.issued, existing);
            if (op.source === 'user') t.run("UPDATE memories SET source = 'user' WHERE id = ?", [existing]);
            return 0;
          }
        }
        const id = placeInsert(ctx, 'memories', op.issued);
        const n = t.run('INSERT INTO memories(id, category, content, source, created_at, last_accessed, norm) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          id,
          op.category,
          op.content,
          op.source,
          op.ts,
          op.ts,
          norm,
        ]);
        // Only memories Baton noted on its own are capped; what the user asked to keep is never cleaned up.
        if (op.source === 'auto') {
          t.run(
            "DELETE FROM memories WHERE source = 'auto' AND id NOT IN (SELECT id FROM memories WHERE source = 'auto' ORDER BY last_accessed DESC, id DESC LIMIT ?)",
            [op.autoCap],
          );
        }
        return n;
      });
    case 'touchMemories': {
      let changed = 0;
      for (const ref of op.targets) {
        const id = ctx.ids.memories.resolve(ref);
        changed += t.run('UPDATE memories SET last_accessed = ? WHERE id = ?', [op.ts, id]);
        if (op.promoteToUser) t.run("UPDATE memories SET source = 'user' WHERE id = ?", [id]);
      }
      return changed;
    }
    case 'updateMemory':
      return t.run('UPDATE memories SET content = ?, norm = ? WHERE id = ?', [op.content, memoryKey(op.content), ctx.ids.memories.resolve(op.target)]);
    case 'deleteMemory':
      return t.run('DELETE FROM memories WHERE id = ?', [ctx.ids.memories.resolve(op.target)]);

    case 'upsertWorker':
      return t.run(
        `INSERT INTO worker_sessions(name, copilot_session_id, working_dir, status, last_output, origin, owner, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET copilot_session_id = excluded.copilot_session_id, working_dir = excluded.working_dir,
           status = excluded.status, last_output = excluded.last_output, origin = excluded.origin, owner = excluded.owner,
           updated_at = excluded.updated_at`,
        [op.row.name, op.row.copilot_session_id, op.row.working_dir, op.row.status, op.row.last_output, op.row.origin, op.row.owner ?? null, op.ts, op.ts],
      );
    case 'deleteWorker':
      return t.run('DELETE FROM worker_sessions WHERE name = ?', [op.name]);

    case 'addInbox': {
      const id = placeInsert(ctx, 'inbox', op.issued);
      return t.run('INSERT INTO inbox(id, worker_name, origin, kind, content, result, delivered, ts) VALUES (?, ?, ?, ?, ?, ?, 0, ?)', [
        id,
        op.worker_name,
        op.origin,
        op.kind,
        op.content,
        op.result ?? null,
        op.ts,
      ]);
    }
    case 'markInboxDelivered':
      return t.atomic(() => {
        const n = t.run('UPDATE inbox SET delivered = 1 WHERE id = ?', [ctx.ids.inbox.resolve(op.target)]);
        // Delivered results are kept only for diagnosis, and only the newest (the newest row keeps ids rising).
        t.run('DELETE FROM inbox WHERE delivered = 1 AND id < (SELECT id FROM inbox WHERE delivered = 1 ORDER BY id DESC LIMIT 1 OFFSET ?)', [
          INBOX_DELIVERED_KEEP - 1,
        ]);
        return n;
      });
  }
}

/** Marks `conversation` active at `ts` (creating its row); a first message gives an untitled one its title. */
function touchConversation(t: SqlJsTables, conversation: string, title: string, ts: string): void {
  // Two messages a turn land in a conversation that exists: one statement then (an update finds its row), two only
  // for a new conversation (it asked whether the row existed, then wrote it, on every append).
  const touched = t.run(
    `UPDATE conversations SET last_activity = max(last_activity, ?), title = CASE WHEN title = '' AND renamed = 0 THEN ? ELSE title END WHERE id = ?`,
    [ts, title, conversation],
  );
  if (!touched) t.run('INSERT INTO conversations(id, title, renamed, created_at, last_activity) VALUES (?, ?, 0, ?, ?)', [conversation, title, ts, ts]);
}

/**
 * Keeps the most recently active conversations of `id`'s kind: a tool call's own (TOOL_CONVERSATIONS_KEEP), or the
 * user's (`keep`); the others go with their log and their state. Empty ones go first, and `emptyOnly` (a conversation
 * created, no message yet) takes only those. Never `id` itself (it is being written to) nor one in `inUse`: a
 * conversation answering would lose the question it answers, the one shown would empty under the user's eyes. Those
 * may hold the count above the bound for a while; the next conversation's first message brings it back.
 */
function pruneConversations(ctx: OpContext, id: string, keep: number, inUse: readonly string[], emptyOnly: boolean): void {
  const t = ctx.tables;
  const tool = id.startsWith(TOOL_CONVERSATION_PREFIX);
  const ofKind = '(substr(id, 1, ?) = ?) = ?';
  const kind = [TOOL_CONVERSATION_PREFIX.length, TOOL_CONVERSATION_PREFIX, tool ? 1 : 0];
  const over = t.number(`SELECT count(*) FROM conversations WHERE ${ofKind}`, kind) - (tool ? TOOL_CONVERSATIONS_KEEP : keep);
  if (over <= 0) return;
  const spared = [id, ...inUse];
  const hasRows = 'EXISTS (SELECT 1 FROM conversation_log l WHERE l.conversation = conversations.id)';
  const stale = t.column(
    `SELECT id FROM conversations WHERE ${ofKind} AND id NOT IN (${spared.map(() => '?').join(', ')}) ${emptyOnly ? `AND NOT ${hasRows}` : ''}
     ORDER BY ${hasRows}, last_activity, created_at, id LIMIT ?`,
    [...kind, ...spared, over],
  );
  dropConversations(ctx, stale.map(String));
}

function dropConversations(ctx: OpContext, ids: string[]): number {
  const t = ctx.tables;
  let changed = 0;
  for (const id of ids) {
    changed += t.run('DELETE FROM conversations WHERE id = ?', [id]);
    t.run('DELETE FROM conversation_log WHERE conversation = ?', [id]);
    t.run('DELETE FROM checkpoints WHERE conversation = ?', [id]);
    // Its own state (session id, fingerprint, live reply): exactly its keys. Not every key ending in `@id`: ids may hold
    // an '@' themselves, and deleting 'host' took the saved session of 'bob@host' with it.
    const dropped = CONVERSATION_STATE_NAMES.reduce((n, name) => n + t.run('DELETE FROM state WHERE key = ?', [conversationStateKey(name, id)]), 0);
    if (dropped) ctx.stateDropped?.();
  }
  return changed;
}

// On replay the issued id is kept when it is still free; otherwise the row moves to a fresh id and IssuedIds
// remembers where. Memory ids are small counters that users see ("#12"), so one another window has used and deleted
// since is not handed out again either (AUTOINCREMENT's promise); log and inbox ids come from the clock and are
// practically never reused, so there the sequence is ignored and the row keeps its place in time.
function placeInsert(ctx: OpContext, table: IssuingTable, issued: number): number {
  if (!ctx.replaying) return issued;
  const t = ctx.tables;
  const taken = t.number(`SELECT count(*) FROM ${table} WHERE id = ?`, [issued]) > 0;
  const used = table === 'memories' && t.number('SELECT seq FROM sqlite_sequence WHERE name = ?', [table]) >= issued;
  const id = taken || used ? ctx.freshId(table) : issued;
  ctx.ids[table].move(issued, id);
  return id;
}
