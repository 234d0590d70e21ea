// @baton in VS Code's Chat view. Each chat session of the Chat view is its own Baton conversation
// (a new chat there is a new conversation here), so Chat's history and Baton's agree; the panel
// lists it with the others. A message is tagged "[via chat]", its answer streams in as markdown,
// workers it starts show as progress, and the response stays open until those workers' results
// are answered (Stop lets go: later answers wait for the next @baton message).
// The stable API names no chat session, so the conversation id rides in each result's metadata and
// is read back from the session's history (ChatResponseTurn.result.metadata, this participant's
// turns only); a chat with no earlier @baton answer is a new chat.
import * as vscode from 'vscode';
import type { BatonEvent } from '../core/api/batonEvents';
import { BatonApiError } from '../core/api/batonAccess';
import { conversationOfPrompts, firstDroppedChatMessage } from '../core/api/chatHistory';
import { answerEndNote, ChatRelay, messagesElsewhere, parseRemember, type AnswerEnd } from '../core/api/chatRelay';
import type { PreparedContext } from '../core/context/chatContext';
import { Conversations } from '../core/conversations/conversations';
import { LOG_KEEP } from '../core/store/bounds';
import type { Origin } from '../core/orchestrator/events';
import { formatWorkerList } from '../core/workers/workerTools';
import { chatReferences } from './chatReferences';
import type { BatonServices, Core } from './services';

export const PARTICIPANT_ID = 'baton.baton';
/** A Chat view's conversation id starts so (Conversations.newId). */
const CHAT_PREFIX = 'chat';
/** A Review changes command appears with the worktree work; until then the buttons offer the panel. */
const REVIEW_COMMAND = 'baton.reviewChanges';
/** How long a retried request waits for the conversation's running answer (a stopped one settles in well under a second). */
const RETRY_WAIT_MS = 30_000;

export function registerChatParticipant(context: vscode.ExtensionContext, services: BatonServices): vscode.Disposable {
  let relay: ChatRelay | undefined;
  services.onReady((core) => (relay = new ChatRelay(core.access.events, core.conversations)));
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (request, chatContext, stream, token) => {
    const core = await services.ready();
    relay ??= new ChatRelay(core.access.events, core.conversations);
    return handle(core, relay, request, chatContext, stream, token);
  });
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'baton.svg');
  return new vscode.Disposable(() => {
    participant.dispose();
    relay?.dispose();
  });
}

/** The Baton conversation of this chat session: the one its last @baton answer named, or a new one. */
export function conversationOf(history: vscode.ChatContext['history']): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i];
    if (!(turn instanceof vscode.ChatResponseTurn) || turn.participant !== PARTICIPANT_ID) continue;
    const id: unknown = turn.result.metadata?.conversation;
    if (typeof id === 'string' && id) return id;
  }
  return undefined;
}

async function handle(
  core: Core,
  relay: ChatRelay,
  request: vscode.ChatRequest,
  chatContext: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const conversation = conversationOf(chatContext.history) ?? stoppedConversation(core, chatContext.history) ?? Conversations.newId(CHAT_PREFIX);
  if (!request.command) await matchHistory(core, conversation, chatContext.history, stream, token);
  const result = await answer(core, relay, request, conversation, stream, token);
  return { ...result, metadata: { conversation, ...result.metadata } };
}

/** The conversation of a chat whose @baton answers name none (each was stopped: VS Code keeps no result then). */
function stoppedConversation(core: Core, history: vscode.ChatContext['history']): string | undefined {
  const prompts = history.flatMap((turn) =>
    turn instanceof vscode.ChatRequestTurn && turn.participant === PARTICIPANT_ID && !turn.command ? [turn.prompt] : [],
  );
  if (!prompts.length) return undefined;
  const candidates = core.store
    .listConversations()
    // Most recently active first, as the store lists them.
    .filter((c) => c.id.startsWith(`${CHAT_PREFIX}-`) && c.messages > 0)
    .slice(0, 20)
    .map((c) => ({ id: c.id, log: core.store.recentLog(LOG_KEEP, c.id) }));
  return conversationOfPrompts(prompts, candidates);
}

/**
 * The prompts of this chat's @baton requests (not its commands) answered in `conversation`, oldest first. A stopped
 * one's answer names no conversation (VS Code keeps no result for it): it is the chat's too, still shown there; left
 * out, it read as taken out of the chat, and the next message cut the conversation before it (matchHistory).
 */
function askedIn(history: vscode.ChatContext['history'], conversation: string): string[] {
  const prompts: string[] = [];
  history.forEach((turn, i) => {
    const asked = history[i - 1];
    if (!(turn instanceof vscode.ChatResponseTurn) || turn.participant !== PARTICIPANT_ID || turn.command) return;
    const named = turn.result.metadata?.conversation;
    if ((named !== undefined && named !== conversation) || !(asked instanceof vscode.ChatRequestTurn)) return;
    prompts.push(asked.prompt);
  });
  return prompts;
}

/**
 * A request edited or retried in the Chat view took it and the later ones out of the chat's history: the conversation
 * is taken back to match before the new one is sent (chatHistory.ts), and the chat says so. A retry right after Stop
 * finds the stopped turn still settling, or another answer running there: that is waited for (RETRY_WAIT_MS at most).
 */
async function matchHistory(
  core: Core,
  conversation: string,
  history: vscode.ChatContext['history'],
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<void> {
  const asked = askedIn(history, conversation);
  // A new chat, or one that has only used commands: nothing of it is in the log to take back.
  if (!asked.length) return;
  const orchestrator = core.conversations.get(conversation);
  const dropped = () => {
    const log = core.store.recentLog(LOG_KEEP, conversation);
    const row = firstDroppedChatMessage(asked, log);
    return row && { id: row.id, count: log.length - log.indexOf(row) };
  };
  if (!dropped()) return;
  if (orchestrator.answering) {
    stream.progress('Waiting for the answer running in this conversation to end…');
    const cancel = new AbortController();
    const cancelled = token.onCancellationRequested(() => cancel.abort());
    await orchestrator.whenAnswered(RETRY_WAIT_MS, cancel.signal).finally(() => cancelled.dispose());
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

async function answer(
  core: Core,
  relay: ChatRelay,
  request: vscode.ChatRequest,
  conversation: string,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  for (const answer of relay.takePending(conversation))
    stream.markdown(`**Worker '${answer.worker}' finished** (while this chat was idle):\n\n${answer.text}\n\n---\n\n`);
  switch (request.command) {
    case 'workers':
      stream.markdown(codeBlock(formatWorkerList(core.access.workerInfos(), Date.now())));
      stream.button({ command: 'baton.focus', title: 'Open Baton panel' });
      return {};
    case 'remember': {
      const parsed = parseRemember(request.prompt);
      if ('error' in parsed) {
        stream.markdown(parsed.error);
        return {};
      }
      const { memory, duplicate } = core.store.addMemory(parsed.category, parsed.content, 'user');
      stream.markdown(
        duplicate ? `Already remembered as #${memory.id} (${memory.category}).` : `Remembered #${memory.id} (${memory.category}): ${memory.content}`,
      );
      return {};
    }
    case 'compact': {
      stream.progress('Compacting the conversation…');
      const r = await core.conversations.get(conversation).compact();
      stream.markdown(`Compacted the conversation: ${r.tokensRemoved} tokens and ${r.messagesRemoved} messages freed.`);
      return {};
    }
    case 'new': {
      // The messages after this one in this chat go to a new conversation; the old one stays in Baton's list.
      const next = Conversations.newId(CHAT_PREFIX);
      core.conversations.get(next);
      stream.markdown("Started a new conversation (the previous one stays in the Baton panel's list).");
      return { metadata: { conversation: next } };
    }
    default: {
      const attached = await readAttached(core, request, stream);
      if (!attached.ok) return { errorDetails: { message: attached.message } };
      return ask(core, relay, request.prompt, conversation, stream, token, attached.context);
    }
  }
}

/**
 * The request's references read as the panel's chips are (bounded, protected paths refused); one that cannot be read
 * refuses the message, as in the panel: nothing is sent half-built. What Baton does not read is said.
 */
async function readAttached(
  core: Core,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
): Promise<{ ok: true; context: PreparedContext | undefined } | { ok: false; message: string }> {
  const { refs, skipped } = await chatReferences(request.references, request.prompt);
  if (skipped.length) stream.markdown(`_Not read (Baton reads files, folders and selections): ${skipped.map((s) => `\`${s}\``).join(', ')}._\n\n`);
  if (!refs.length) return { ok: true, context: undefined };
  stream.progress(`Reading ${refs.length === 1 ? 'the attached reference' : `${refs.length} attached references`}…`);
  const read = await core.chat.context.readLenient(refs);
  return read.ok ? read : { ok: false, message: `The message was not sent: ${read.message}` };
}

async function ask(
  core: Core,
  relay: ChatRelay,
  prompt: string,
  conversation: string,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
  attached?: PreparedContext,
): Promise<vscode.ChatResult> {
  const elsewhere = messagesElsewhere(core.store.recentLog(100, conversation));
  if (elsewhere.count)
    stream.markdown(
      `_${elsewhere.count} message${elsewhere.count === 1 ? '' : 's'} since your last @baton message came from ${elsewhere.channels.join(', ')}; the conversation continues from there._\n\n`,
    );
  const abort = new AbortController();
  let stopWaiting!: () => void;
  const stopped = new Promise<void>((resolve) => (stopWaiting = resolve));
  const cancelled = token.onCancellationRequested(() => {
    abort.abort();
    stopWaiting();
  });
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
    const reply = await core.access.ask(
      prompt,
      'chat',
      {
        conversation,
        signal: abort.signal,
        on: (e: BatonEvent) => {
          if (e.type === 'turn.streaming') {
            if (e.restarted) stream.markdown('\n\n_(Baton retried; the answer starts over.)_\n\n');
            stream.markdown(e.delta);
          } else if (e.type === 'worker.started') {
            workers.push(e.worker);
            stream.progress(`Worker '${e.worker}' started in ${e.workingDir}`);
            // Claimed as it starts: its result can be answered right after this turn, before this code runs again.
            pending.push(follow(e.worker));
          }
        },
      },
      attached,
    );
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
        const open = workers.filter((w) => !finished.has(w));
        if (open.length)
          stream.markdown(`\n\n_Stopped waiting; ${open.map((w) => `'${w}'`).join(', ')} will report in the panel and in your next @baton message._`);
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
    cancelled.dispose();
    for (const letGo of followed.values()) letGo();
  }
}

/** What a reply leads to: a worker's transcript, its changes and its card in the panel; a plain answer, nothing more. */
function buttons(stream: vscode.ChatResponseStream, workers: string[], core: Core): void {
  if (!workers.length) return;
  stream.button({ command: 'baton.worker.openTranscript', title: `Show '${workers[0]}' transcript`, arguments: [workers[0]] });
  // Review only when the worker left changes waiting (its worktree, or tracked files in place).
  if (core.pool.changes?.has(workers[0]!)) stream.button({ command: REVIEW_COMMAND, title: 'Review changes', arguments: [workers[0]] });
  stream.button({ command: 'baton.focus', title: 'Open Baton panel' });
}

function codeBlock(text: string): string {
  return `\`\`\`text\n${text}\n\`\`\``;
}
