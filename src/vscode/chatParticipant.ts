// @baton in VS Code's Chat view. Each chat session of the Chat view is its own Baton conversation
// (a new chat there is a new conversation here), so Chat's history and Baton's agree; the panel
// lists it with the others. A message is tagged "[via chat]", its answer streams in as markdown,
// workers it starts show as progress, and the response stays open until those workers' results
// are answered (Stop lets go: later answers wait for the next @baton message).
// The stable API names no chat session, so the conversation id rides in each result's metadata and
// is read back from the session's history (ChatResponseTurn.result.metadata, this participant's
// turns only); a chat with no earlier @baton answer is a new chat. What needs no VS Code is in core/api/chatRequest.ts.
import * as vscode from 'vscode';
import { askedIn, chatPrompts, conversationNamed, type ChatTurn } from '../core/api/chatHistory';
import {
  CHAT_PREFIX,
  sendFromChat,
  showPending,
  stoppedConversation,
  whileWanted,
  type Attached,
  type ChatAnswer,
  type ChatStream,
} from '../core/api/chatRequest';
import { ChatRelay, parseRemember } from '../core/api/chatRelay';
import { Conversations } from '../core/conversations/conversations';
import { formatWorkerList } from '../core/workers/workerTools';
import { chatReferences } from './chatReferences';
import type { BatonServices, Core } from './services';

export const PARTICIPANT_ID = 'baton.baton';
/** How many conversations named by this window's chats are remembered (more than the store keeps). */
const NAMED_KEEP = 200;

export function registerChatParticipant(context: vscode.ExtensionContext, services: BatonServices): vscode.Disposable {
  let relay: ChatRelay | undefined;
  // The conversations an answer handed to a chat names (that chat keeps the result): never a stopped chat's to join.
  const named = new Set<string>();
  services.onReady((core) => (relay = new ChatRelay(core.access.events, core.conversations)));
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (request, chatContext, stream, token) => {
    const core = await services.ready();
    relay ??= new ChatRelay(core.access.events, core.conversations);
    const result = await handle(core, relay, named, request, turnsOf(chatContext.history), whileWanted(stream, token), token);
    const conversation = result.metadata?.conversation;
    if (!token.isCancellationRequested && typeof conversation === 'string') {
      // Bound: more than the store keeps conversations (100 of the user's); the one named longest ago goes first.
      named.delete(conversation);
      named.add(conversation);
      if (named.size > NAMED_KEEP) named.delete(named.values().next().value as string);
    }
    return result;
  });
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'baton.svg');
  return new vscode.Disposable(() => {
    participant.dispose();
    relay?.dispose();
  });
}

/** @baton's turns of a chat's history (other participants' left out), as chatHistory reads them. */
function turnsOf(history: vscode.ChatContext['history']): ChatTurn[] {
  return history.flatMap((turn): ChatTurn[] => {
    if (turn.participant !== PARTICIPANT_ID) return [];
    if (turn instanceof vscode.ChatRequestTurn) return [{ kind: 'request', prompt: turn.prompt, command: turn.command }];
    if (turn instanceof vscode.ChatResponseTurn) return [{ kind: 'response', command: turn.command, conversation: turn.result.metadata?.conversation }];
    return [];
  });
}

/**
 * The Baton conversation of this chat session is the one its last @baton answer named, else the one its stopped
 * requests went to, else a new one. Each await may end in a Stop: the token is read after it, and nothing is sent then.
 */
async function handle(
  core: Core,
  relay: ChatRelay,
  named: ReadonlySet<string>,
  request: vscode.ChatRequest,
  turns: ChatTurn[],
  stream: ChatStream,
  token: vscode.CancellationToken,
): Promise<ChatAnswer> {
  const conversation = conversationNamed(turns) ?? stoppedConversation(core, chatPrompts(turns), named) ?? Conversations.newId(CHAT_PREFIX);
  const result = request.command
    ? await command(core, relay, request, conversation, stream, token)
    : await sendFromChat(core, relay, request.prompt, conversation, askedIn(turns, conversation), stream, token, () => readAttached(core, request, stream));
  return { ...result, metadata: { conversation, ...result.metadata } };
}

/** A slash command: a list, a memory, a compaction or a new conversation, not sent to the model. */
async function command(
  core: Core,
  relay: ChatRelay,
  request: vscode.ChatRequest,
  conversation: string,
  stream: ChatStream,
  token: vscode.CancellationToken,
): Promise<ChatAnswer> {
  if (token.isCancellationRequested) return {};
  showPending(relay, conversation, stream);
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
    default:
      stream.markdown(`Unknown command /${request.command}.`);
      return {};
  }
}

/**
 * The request's references read as the panel's chips are (bounded, protected paths refused); one that cannot be read
 * refuses the message, as in the panel: nothing is sent half-built. What Baton does not read is said.
 */
async function readAttached(core: Core, request: vscode.ChatRequest, stream: ChatStream): Promise<Attached> {
  const { refs, skipped } = await chatReferences(request.references, request.prompt);
  if (skipped.length) stream.markdown(`_Not read (Baton reads files, folders and selections): ${skipped.map((s) => `\`${s}\``).join(', ')}._\n\n`);
  if (!refs.length) return { ok: true, context: undefined };
  stream.progress(`Reading ${refs.length === 1 ? 'the attached reference' : `${refs.length} attached references`}…`);
  const read = await core.chat.context.readLenient(refs);
  return read.ok ? read : { ok: false, message: `The message was not sent: ${read.message}` };
}

function codeBlock(text: string): string {
  return `\`\`\`text\n${text}\n\`\`\``;
}
