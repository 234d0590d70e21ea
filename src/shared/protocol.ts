// The one protocol between the extension host and the chat webview. Both sides import this file.
// Host → webview messages carry a sequence number; a gap makes the webview ask for a snapshot,
// so the host can stay the owner of all data and the webview can be thrown away at any time.
import { z } from 'zod';
import type { ContextErrorKind } from '../core/context/contextPort';
import { referenceKindSchema, referenceSchema, MAX_REFERENCES, type ReferenceChip, type StoredReference } from '../core/context/references';
import { MAX_MESSAGE_LENGTH } from './messageLimit';
import { hasVisibleText } from './visibleText';

export type { ReferenceChip, StoredReference } from '../core/context/references';
export { MAX_REFERENCES } from './referenceLimit';

export type MessageRole = 'user' | 'assistant' | 'background' | 'system' | 'error';
export type MessageStatus = 'streaming' | 'complete' | 'partial' | 'failed' | 'cancelled' | 'interrupted' | 'pending';

export interface RouteInfo {
  tier: 'fast' | 'standard' | 'premium' | 'fixed';
  model: string;
  reason: 'override' | 'classifier' | 'follow-up' | 'cooldown' | 'background' | 'manual' | 'disabled';
}

export interface UsageInfo {
  inputTokens?: number;
  outputTokens?: number;
  /** Premium requests the turn cost: the runtime's multiplier of its model (a prompt is billed once, whatever its tool rounds). */
  premiumRequests?: number;
}

export interface ChatMessage {
  id: string;
  role: MessageRole;
  content: string;
  status: MessageStatus;
  source?: string;
  route?: RouteInfo;
  usage?: UsageInfo;
  /** For errors: what the user can do about it. */
  action?: { label: string; command: string };
  /** For the user's messages: what the editor added (file, selection, problems …), kept in the log. */
  references?: StoredReference[];
  /** The window (its workspace's name) it was written in, when that is not this window. */
  from?: string;
  /** Queued in the window that runs this conversation, not in this one (Remove cancels it there). */
  queuedElsewhere?: true;
  /**
   * For a finished worker (role 'background'): what a person reads, as a result card. `content` stays the
   * text the model was given (its wrapper included); render this instead when it is present.
   */
  workerResult?: WorkerResultCard;
  ts: number;
}

/** A worker's task ended: the result card's fields (the panel renders it; the model gets its own wrapper). */
export interface WorkerResultCard {
  /** The worker's name. */
  worker: string;
  state: WorkerEndState;
  /** How long the task ran. */
  durationMs: number;
  /** The changes waiting for review when the task ended; absent when it changed nothing (or nothing is tracked). */
  changes?: { files: number; additions: number; deletions: number };
  /** The worker's own report, markdown, as it wrote it ('' when it said nothing); its tail when it was very long. */
  report: string;
  /** Why a task that did not finish ended, in words; absent when its state is 'done'. */
  reason?: string;
}

export type WorkerState = 'running' | 'idle' | 'done' | 'failed' | 'timed_out' | 'killed';
/** How a worker's task ended. */
export type WorkerEndState = Extract<WorkerState, 'done' | 'failed' | 'timed_out' | 'killed'>;

export interface WorkerCard {
  name: string;
  workingDir: string;
  state: WorkerState;
  startedAt: number;
  lastLine: string;
  /** The runtime's sandbox around the worker's commands: 'applied'/'engaged' hold it; anything else says why not. */
  sandbox?: {
    state: 'off' | 'unsupported' | 'applied' | 'engaged' | 'failed';
    reason?: string;
    /**
     * While the sandbox holds: the network mode in force, in full (`line`: the card's tooltip) and in a few words
     * (`brief`: the card), and whether the runtime confirmed it.
     */
    network?: { mode: 'internet' | 'allow' | 'deny'; line: string; brief: string; verified?: boolean };
  };
  /**
   * Where the worker works: its own git worktree (branch, base commit) or the folder itself; `readOnly` there when it
   * was started to read (explain, review, search): its sandbox and its permissions let it change nothing in the folder.
   * `copy`: the folder has no git, and the worktree is one of Baton's own repository of it (no branch of the user's).
   */
  isolation?:
    | { kind: 'worktree'; branch: string; baseCommit: string; sourceDir: string; uncommittedLeftOut: boolean; copy?: boolean }
    | { kind: 'in-place'; readOnly?: boolean };
  /**
   * The worker's pending changes, until they are applied or discarded; `paths`: the files it touched (at most 50);
   * `note`: what else to know of them, in a sentence: what is not part of them and why (folders that are git repositories
   * of their own), or why they cannot be counted (their worktree is gone).
   */
  changes?: { files: number; additions: number; deletions: number; paths?: string[]; note?: string };
  /** Files an Apply found changed differently in the user's tree: Resolve with the worker, or in the editor. */
  conflicts?: string[];
  /** What a running worker is doing beyond a plain task ("resolving conflicts"). */
  activity?: string;
  /** Other pending workers that touched the same files (before either is applied): sequence or merge them. */
  overlaps?: Array<{ worker: string; paths: string[] }>;
  /** The worker's own report of its last finished task (at most 500 characters): stays visible while it runs again. */
  summary?: string;
  /** How its change set ended: the card's final state ("applied …", "kept on baton/x", "discarded"). */
  outcome?: { kind: 'applied' | 'kept' | 'discarded'; text: string; /** That Apply can be undone: the card offers Undo Apply. */ undoable?: boolean };
  /**
   * baton.workers.verifyCommand on its change set, in its sandbox: running, or how the last run ended
   * (`line`: "verify failed: npm test exited 1 after 2.1 s"); `tail`: the last lines of its output (bounded).
   */
  verify?: { state: 'running' | 'passed' | 'failed' | 'not-run'; line: string; tail?: string };
}

export interface PermissionPrompt {
  id: string;
  worker: string;
  kind: string;
  /** What the worker wants to do, in words: the command line or the path. */
  detail: string;
  /** The conversation it is asked for (a worker's reports go there); a turn of it that ends meanwhile awaits input. */
  conversation?: string;
  /**
   * What an "allow" is kept for, as the asker keeps it (the decision `worker`): `asker`, that kind of request for the
   * rest of the worker ("Allow for <worker>"); `conversation`, that tool for the rest of Baton's conversation ("Allow in
   * this conversation"); `folder`, workers working unisolated in this folder until the window closes ("Allow in this
   * folder"). Absent, nothing is kept: each request is decided alone (Allow, Deny).
   */
  kept?: 'asker' | 'conversation' | 'folder';
}

export interface PanelState {
  busy: boolean;
  /** Messages of the conversation shown waiting in this window's queue: sent after the answer, a stopped one too. */
  queued?: number;
  /**
   * The Copilot runtime is being restarted (Baton was idle and it had grown; 0.4-2 s): the header says so, and a
   * message sent meanwhile waits for it and is answered once.
   */
  runtimeRestarting?: boolean;
  model: string;
  routingAuto: boolean;
  /** Set when Baton cannot answer yet (not signed in, no provider): what to do about it. */
  setupHint?: string;
  /** Today's usage in words (tokens, premium requests, turns), shown in the header's tooltip. */
  usageToday?: string;
}

/** A conversation in the panel's list. */
export interface ConversationItem {
  id: string;
  /** Its first message's first words or the user's name for it; '' until its first message. */
  title: string;
  /** When it was last written to (epoch ms). */
  lastActivity: number;
  messages: number;
  /** A turn is running or queued in it. */
  busy: boolean;
  /** A reply or a worker's result arrived in it while another conversation was shown. */
  unread: boolean;
}

export interface Snapshot {
  /** The conversation shown, and every conversation (most recently active first); the host always sends both. */
  conversation?: string;
  conversations?: ConversationItem[];
  messages: ChatMessage[];
  workers: WorkerCard[];
  permissions: PermissionPrompt[];
  state: PanelState;
  /** The active editor's file or selection that goes with the next message (absent when none, or turned off). */
  implicit?: ReferenceChip;
  /** Chips added from outside the panel (commands) and not sent yet. */
  attach?: ReferenceChip[];
  /** Why the last attach was refused, until something is attached or sent. */
  notice?: { kind: ContextErrorKind; message: string };
  /**
   * How many older messages this snapshot leaves out: only the first page does (see firstPage), and the snapshot that
   * answers `ready` has them all.
   */
  older?: number;
  /**
   * A message to bring into view and give the focus (the one Baton: Search Conversations… picked). The panel reveals
   * it once per snapshot that carries it; the host sends it for a few seconds after the pick, so a panel that opens
   * for it (its first page, then the whole snapshot) gets it too.
   */
  reveal?: string;
}

/**
 * The id of the `<script type="application/json">` element in the webview's HTML that holds the first page: the
 * panel paints it before saying `ready`, so its first paint does not wait for a round trip through the host. It is
 * data, never executed, so the CSP need not admit it.
 */
export const FIRST_PAGE_ELEMENT_ID = 'baton-first-page';
/**
 * The id of the `<script type="text/plain">` element in the webview's HTML that holds the code highlighter's bundle
 * (highlight.js and its grammars): text the page does not run as it loads, so compiling it is not on the way to the
 * first paint. The panel runs it just after that paint, as a script with the page's nonce (webview/highlighter.ts).
 */
export const HIGHLIGHTER_ELEMENT_ID = 'baton-highlighter';
/** The first page holds at most this many of the newest messages (the panel first renders about one screenful)… */
export const FIRST_PAGE_MESSAGES = 40;
/** …and at most this many characters of their content (one long answer is left to the snapshot that follows). */
export const FIRST_PAGE_CHARS = 200_000;

/** The newest page of `snapshot`: everything in it but the messages older than the newest that fit the bounds. */
export function firstPage(snapshot: Snapshot): Snapshot {
  const { messages } = snapshot;
  let from = messages.length;
  let chars = 0;
  while (from > 0 && messages.length - from < FIRST_PAGE_MESSAGES) {
    chars += messages[from - 1]!.content.length;
    if (chars > FIRST_PAGE_CHARS) break;
    from--;
  }
  return from === 0 ? snapshot : { ...snapshot, messages: messages.slice(from), older: from };
}

/** Host → webview. */
export type HostMessage =
  | { type: 'snapshot'; seq: number; snapshot: Snapshot }
  | { type: 'message/append'; seq: number; message: ChatMessage }
  | { type: 'message/delta'; seq: number; id: string; delta: string }
  | { type: 'message/update'; seq: number; id: string; patch: Partial<Omit<ChatMessage, 'id'>> }
  | { type: 'workers/update'; seq: number; workers: WorkerCard[] }
  | { type: 'permission/request'; seq: number; request: PermissionPrompt }
  | { type: 'permission/resolved'; seq: number; id: string }
  | { type: 'state'; seq: number; state: PanelState }
  /** The list of conversations changed (a new one, a title, a count, busy, a badge); `active` is the one shown. */
  | { type: 'conversations/update'; seq: number; active: string; conversations: ConversationItem[] }
  | { type: 'composer/focus'; seq: number }
  | { type: 'context/implicit'; seq: number; chip?: ReferenceChip }
  | { type: 'context/added'; seq: number; chips: ReferenceChip[] }
  | { type: 'context/refused'; seq: number; kind: ContextErrorKind; message: string }
  /** A message was not sent (a reference failed): its text and chips go back into the composer. */
  | { type: 'chat/refused'; seq: number; text: string; kind: ContextErrorKind; message: string }
  /** An edited message was not sent (chat/edit): nothing was taken back; `message` says why, for people. */
  | { type: 'edit/refused'; seq: number; id: string; text: string; message: string }
  /** Your queued message `id` was taken out (chat/withdraw): its text and references, to go back into the composer. */
  | { type: 'chat/withdrawn'; seq: number; id: string; text: string; chips: ReferenceChip[] };

/** Distributes Omit over a union (the built-in Omit collapses it). */
export type WithoutSeq<T> = T extends unknown ? Omit<T, 'seq'> : never;
export type HostMessageBody = WithoutSeq<HostMessage>;

export const permissionDecisionSchema = z.enum(['once', 'worker', 'deny']);
export type PermissionDecision = z.infer<typeof permissionDecisionSchema>;

const conversationIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/);

/** What a message sent from the composer carries. */
const sendFields = {
  // Blank (whitespace, NULs, zero-width characters) ran a turn on nothing; the composer sends no such text either.
  text: z.string().min(1).max(MAX_MESSAGE_LENGTH).refine(hasVisibleText, 'the message has nothing to read: only spaces or invisible characters'),
  references: z
    .array(z.object({ ref: referenceSchema, implicit: z.boolean().optional() }))
    .max(MAX_REFERENCES)
    .optional(),
};

/** Webview → host. Everything from the webview is untrusted and validated with this schema. */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('snapshot/request') }),
  z.object({ type: z.literal('chat/send'), ...sendFields }),
  /** Your message `id` edited: the conversation is taken back to just before it, and `text` sent in its place. */
  z.object({ type: z.literal('chat/edit'), id: z.string().regex(/^log-\d{1,16}$/), ...sendFields }),
  /** Your message `id` sent again as it was: the conversation is taken back to just before it first (Retry on its reply). */
  z.object({ type: z.literal('chat/retry'), id: z.string().regex(/^log-\d{1,16}$/) }),
  /**
   * Stop. `id`: the reply the panel showed streaming when it was pressed (`turn-…`, or `live-…` streaming in another
   * window); only that one is stopped, while it still runs (a double click stopped the next answer too). Without it,
   * whatever runs now.
   */
  z.object({
    type: z.literal('chat/stop'),
    id: z
      .string()
      .regex(/^(turn-[A-Za-z0-9_-]{1,64}|live-\d{1,16})$/)
      .optional(),
  }),
  /** Your message `id`, still queued, taken out before it reaches the session (Remove on a queued message). */
  z.object({ type: z.literal('chat/withdraw'), id: z.string().regex(/^log-\d{1,16}$/) }),
  z.object({ type: z.literal('chat/new') }),
  z.object({ type: z.literal('chat/resend'), id: z.string().min(1) }),
  z.object({ type: z.literal('conversation/open'), id: conversationIdSchema }),
  /** Rename and delete ask in the editor (an input box, a modal confirmation) before anything changes. */
  z.object({ type: z.literal('conversation/rename'), id: conversationIdSchema }),
  z.object({ type: z.literal('conversation/delete'), id: conversationIdSchema }),
  z.object({ type: z.literal('routing/toggle') }),
  // `action` (a card's buttons): what to open; without it, the worker's transcript.
  z.object({
    type: z.literal('worker/open'),
    name: z.string().min(1),
    action: z.enum(['transcript', 'review', 'apply', 'discard', 'folder', 'branch', 'ask', 'resolve-worker', 'resolve-editor', 'undo']).optional(),
  }),
  z.object({ type: z.literal('permission/answer'), id: z.string().min(1), decision: permissionDecisionSchema }),
  z.object({ type: z.literal('link/open'), href: z.string().min(1).max(4096) }),
  z.object({ type: z.literal('code/insert'), code: z.string().max(1_000_000) }),
  z.object({ type: z.literal('command/run'), command: z.string().regex(/^baton\.[A-Za-z]+$/) }),
  z.object({ type: z.literal('context/pick'), kind: referenceKindSchema }),
  z.object({ type: z.literal('context/drop'), uris: z.array(z.string().min(1).max(4096)).min(1).max(50) }),
  z.object({ type: z.literal('context/open'), ref: referenceSchema }),
  // The user removed an attached chip: the host forgets it too, or the next snapshot would bring it back.
  z.object({ type: z.literal('context/remove'), key: z.string().min(1).max(8192) }),
]);
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

export function parseWebviewMessage(raw: unknown): { ok: true; message: WebviewMessage } | { ok: false; error: string } {
  const result = webviewMessageSchema.safeParse(raw);
  if (result.success) return { ok: true, message: result.data };
  return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}
