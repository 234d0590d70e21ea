// The steps of an @baton request from VS Code's Chat view that need no VS Code: which conversation a chat whose
// answers name none is, taking the conversation back to what the chat still shows, and asking with the answer
// streamed in. src/vscode/chatParticipant.ts maps VS Code's types onto these.
// Invariant: once the request is cancelled (Stop), nothing more is sent to Baton and nothing is written to the
// response. VS Code calls a listener added to a token cancelled already only a tick later, after the ask was queued:
// the token is read after every await, and the ask's signal starts aborted (followToken).
import { BatonApiError } from './batonAccess';
import type { BatonEvent } from './batonEvents';
import { followToken, type CancellationTokenLike } from './batonAgentTool';
import { conversationOfPrompts, firstDroppedChatMessage } from './chatHistory';
import { answerEndNote, messagesElsewhere, type AnswerEnd, type ChatRelay } from './chatRelay';
import type { BatonCore } from '../batonCore';
import type { PreparedContext } from '../context/chatContext';
import type { Origin } from '../orchestrator/events';
import { LOG_KEEP } from '../store/bounds';

/** A Chat view's conversation id starts so (Conversations.newId). */
export const CHAT_PREFIX = 'chat';
/** A Review changes command appears with the worktree work; until then the buttons offer the panel. */
const REVIEW_COMMAND = 'baton.reviewChanges';
/** How long a retried request waits for the conversation's running answer (a stopped one settles in well under a second). */
const RETRY_WAIT_MS = 30_000;

/** What @baton writes to a Chat response (the part of VS Code's ChatResponseStream it uses). */
export interface ChatStream {
  markdown(text: string): void;
  progress(text: string): void;
  button(command: { command: string; title: string; arguments?: unknown[] }): void;
}

/** A Chat request's result (VS Code's ChatResult). */
export interface ChatAnswer {
  metadata?: Record<string, unknown>;
  errorDetails?: { message: string };
}

/** `stream`, writing only while the request is not cancelled (VS Code shows nothing written after a Stop). */
export function whileWanted(stream: ChatStream, token: CancellationTokenLike): ChatStream {
  return {
    markdown: (text) => token.isCancellationRequested || stream.markdown(text),
    progress: (text) => token.isCancellationRequested || stream.progress(text),
    button: (command) => token.isCancellationRequested || stream.button(command),
  };
}

/**
 * The conversation of a chat whose @baton answers name none (each was stopped: VS Code keeps no result then), among
 * the Chat view's recent ones; `named`: the conversations other chats of this window hold an answer naming.
 */
export function stoppedConversation(core: BatonCore, prompts: readonly string[], named: ReadonlySet<string>): string | undefined {
  if (!prompts.length) return undefined;
  const candidates = core.store
    .listConversations()
    // Most recently active first, as the store lists them.
    .filter((c) => c.id.startsWith(`${CHAT_PREFIX}-`) && c.messages > 0)
    .slice(0, 20)
    .map((c) => ({ id: c.id, log: core.store.recentLog(LOG_KEEP, c.id), named: named.has(c.id) }));
  return conversationOfPrompts(prompts, candidates);
}

/**
 * A request edited or retried in the Chat view took it and the later ones out of the chat's history: the conversation
 * is taken back to match before the new one is sent (chatHistory.ts), and the chat says so. A retry right after Stop
 * finds the stopped turn still settling, or another answer running there: that is waited for (RETRY_WAIT_MS at most).
 * `asked`: the chat's prompts answered in `conversation` (askedIn).
 */
export async function matchHistory(
  core: BatonCore,
  conversation: string,
  asked: readonly string[],
  stream: ChatStream,
  token: CancellationTokenLike,
): Promise<void> {
  const dropped = () => {
    const log = core.store.recentLog(LOG_KEEP, conversation);
    const row = firstDroppedChatMessage(asked, log);
    return row && { id: row.id, count: log.length - log.indexOf(row) };
  };
  if (token.isCancellationRequested || !dropped()) return;
  const orchestrator = core.conversations.get(conversation);
  if (orchestrator.answering) {
    stream.progress('Waiting for the answer running in this conversation to end…');
    const cancel = followToken(token);
    await orchestrator.whenAnswered(RETRY_WAIT_MS, cancel.signal).finally(() => cancel.dispose());
    if (token.isCancellationRequested) return;
  }
  // Read again: the stopped turn may have written its reply meanwhile.
  const now = dropped();
  if (!now) return;
  try {
    await orchestrator.rewindTo(now.id);
    stream.markdown(`_Taken back ${now.count} earlier message${now.count === 1 ? '' : 's'} of this conversation, as this chat no longer has them._\n\n`);
  } catch (err) {
    stream.markdown(`_The earlier messages this chat no longer has were not taken back: ${err instanceof Error ? err.message : String(err)}_\n\n`);
  }
}

/** The answers to workers' results that came while no response of this chat was open, shown first. */
export function showPending(relay: ChatRelay, conversation: string, stream: ChatStream): void {
  for (const answer of relay.takePending(conversation))
    stream.markdown(`**Worker '${answer.worker}' finished** (while this chat was idle):\n\n${answer.text}\n\n---\n\n`);
}

/** What the request's references gave (VS Code reads them): the context to send, or why the message is not sent. */
export type Attached = { ok: true; context: PreparedContext | undefined } | { ok: false; message: string };

/**
 * An @baton message (not a command): the conversation taken back to what the chat still shows, the answers waiting
 * for this chat, the references read (`attach`), then the ask. A Stop at any of these awaits sends nothing.
 */
export async function sendFromChat(
  core: BatonCore,
  relay: ChatRelay,
  prompt: string,
  conversation: string,
  asked: readonly string[],
  stream: ChatStream,
  token: CancellationTokenLike,
  attach: () => Promise<Attached>,
): Promise<ChatAnswer> {
  await matchHistory(core, conversation, asked, stream, token);
  // Stopped meanwhile: the relay keeps its waiting answers for the next request.
  if (token.isCancellationRequested) return {};
  showPending(relay, conversation, stream);
  const attached = await attach();
  if (token.isCancellationRequested) return {};
  if (!attached.ok) return { errorDetails: { message: attached.message } };
  return askInChat(core, relay, prompt, conversation, stream, token, attached.context);
}

/** Sends `prompt` to `conversation` from the Chat view; the answer, and the answers to the workers it starts, stream in. */
export async function askInChat(
  core: BatonCore,
  relay: ChatRelay,
  prompt: string,
  conversation: string,
  stream: ChatStream,
  token: CancellationTokenLike,
  attached?: PreparedContext,
): Promise<ChatAnswer> {
  if (token.isCancellationRequested) return {};
  const elsewhere = messagesElsewhere(core.store.recentLog(100, conversation));
  if (elsewhere.count)
    stream.markdown(
      `_${elsewhere.count} message${elsewhere.count === 1 ? '' : 's'} since your last @baton message came from ${elsewhere.channels.join(', ')}; the conversation continues from there._\n\n`,
    );
  const cancel = followToken(token);
  const stopped = new Promise<void>((resolve) => cancel.signal.addEventListener('abort', () => resolve(), { once: true }));
  const workers: string[] = [];
  const followed = new Map<string, () => void>();
  const waits = new Map<string, () => void>();
  const finished = new Set<string>();
  // A worker can end while Baton's own answer still streams (stopped by it in that turn): said after that answer.
  let answered = false;
  const held: Array<[string, AnswerEnd]> = [];
  const close = (worker: string, end: AnswerEnd) => {
    stream.markdown(answerEndNote(worker, end));
    if (end.kind === 'failed' && end.error.action) stream.button({ command: end.error.action.command, title: end.error.action.label });
  };
  const follow = (worker: string) => {
    const done = new Promise<void>((resolve) => waits.set(worker, resolve));
    followed.set(
      worker,
      relay.claim([worker], {
        on: (e, w) => {
          if (e.type === 'turn.starting') stream.markdown(`\n\n---\n\n**Worker '${w}' finished.** `);
          else if (e.type === 'turn.streaming') stream.markdown(e.delta);
        },
        ended: (w, end) => {
          if (answered) close(w, end);
          else held.push([w, end]);
          finished.add(w);
          waits.get(w)?.();
        },
      }),
    );
    return done;
  };
  const pending: Promise<void>[] = [];
  try {
    const on = (e: BatonEvent) => {
      if (e.type === 'turn.streaming') {
        if (e.restarted) stream.markdown('\n\n_(Baton retried; the answer starts over.)_\n\n');
        stream.markdown(e.delta);
      } else if (e.type === 'worker.started') {
        workers.push(e.worker);
        stream.progress(`Worker '${e.worker}' started in ${e.workingDir}`);
        // Claimed as it starts: its result can be answered right after this turn, before this code runs again.
        pending.push(follow(e.worker));
      }
    };
    const reply = await core.access.ask(prompt, 'chat', { conversation, signal: cancel.signal, on }, attached);
    if (reply.status === 'cancelled') stream.markdown('\n\n_Stopped._');
    else if (reply.note) stream.markdown(`\n\n_${reply.note}_`);
    answered = true;
    for (const [w, end] of held.splice(0)) close(w, end);
    if (pending.length && !token.isCancellationRequested) {
      stream.progress(`Waiting for ${workers.length === 1 ? `worker '${workers[0]}'` : `${workers.length} workers`} to report back…`);
      await Promise.race([Promise.all(pending), stopped]);
      // Stop while the answer to one of these workers streams: that turn stops (what streamed is kept). Looked for among
      // all running turns: the one started last may be another conversation's (the panel's), and then nothing stopped.
      if (token.isCancellationRequested) {
        const ours = (t: { origin: Origin }): boolean => t.origin.channel === 'background' && !!t.origin.worker && workers.includes(t.origin.worker);
        const turn = core.access.events.runningTurns.find(ours);
        if (turn) core.access.stopTurn(turn.turnId);
      }
    }
    buttons(stream, workers, core);
    return { metadata: { turnId: reply.turnId, workers } };
  } catch (err) {
    const e = err instanceof BatonApiError ? err : undefined;
    if (e?.action) stream.button({ command: e.action.command, title: e.action.label });
    buttons(stream, workers, core);
    return { errorDetails: { message: err instanceof Error ? err.message : String(err) } };
  } finally {
    cancel.dispose();
    for (const letGo of followed.values()) letGo();
  }
}

/** What a reply leads to: a worker's transcript, its changes and its card in the panel; a plain answer, nothing more. */
function buttons(stream: ChatStream, workers: string[], core: BatonCore): void {
  if (!workers.length) return;
  stream.button({ command: 'baton.worker.openTranscript', title: `Show '${workers[0]}' transcript`, arguments: [workers[0]] });
  // Review only when the worker left changes waiting (its worktree, or tracked files in place).
  if (core.pool.changes?.has(workers[0]!)) stream.button({ command: REVIEW_COMMAND, title: 'Review changes', arguments: [workers[0]] });
  stream.button({ command: 'baton.focus', title: 'Open Baton panel' });
}
