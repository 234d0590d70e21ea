// What surrounds a message's body: its accessible name, the header (who said it, through which channel, from which
// window, when), the footer (route, usage, status) and its actions (Resend, an error's command). Kept apart from
// MessageView, which is about rendering and streaming the body.
import type { ChatMessage, MessageRole, WebviewMessage } from '../src/shared/protocol';
import { button, h } from './dom';
import { routeText, usageText } from './footerText';
import { timeEl } from './timeText';

const ROLE_LABEL: Record<MessageRole, string> = {
  user: 'You',
  assistant: 'Baton',
  background: 'Background result',
  system: 'Notice',
  error: 'Error',
};

const STATUS_LABEL: Partial<Record<ChatMessage['status'], string>> = {
  partial: 'Partial answer',
  cancelled: 'Stopped',
  failed: 'Failed',
  pending: 'Queued',
};

export type Post = (message: WebviewMessage) => void;

/** Channels other than the panel and the palette; their messages carry a small tag. */
const OTHER_CHANNELS = new Set(['chat', 'tool', 'api']);

/** Where a background message came from, in words: its row's source is `background:<worker>`. */
function backgroundFrom(source: string | undefined): string | undefined {
  if (!source) return undefined;
  const worker = /^background:(.+)$/.exec(source)?.[1];
  return worker ? `from worker ${worker}` : source === 'background' ? undefined : `from ${source}`;
}

/** The message's accessible name. */
export function messageLabel(message: ChatMessage): string {
  const from = message.role === 'background' ? backgroundFrom(message.source) : undefined;
  return `${ROLE_LABEL[message.role]}${from ? ` ${from}` : ''}`;
}

/** The header's parts; `afterPaint`: the time's text is written once the next frame has been painted. */
export function headerParts(message: ChatMessage, afterPaint: boolean): HTMLElement[] {
  const time = new Date(message.ts);
  const parts: HTMLElement[] = [];
  if (message.role === 'background') {
    parts.push(h('span', { class: 'message-author vscode-badge', 'data-testid': 'background-badge' }, ROLE_LABEL.background));
    // A result card names its worker itself.
    const from = message.workerResult ? undefined : backgroundFrom(message.source);
    if (from) parts.push(h('span', { class: 'message-source' }, from));
  } else {
    parts.push(h('span', { class: 'message-author' }, ROLE_LABEL[message.role]));
    // Said in VS Code's Chat view (@baton), by a tool call or another extension: the same conversation, tagged.
    if (message.source && OTHER_CHANNELS.has(message.source))
      parts.push(h('span', { class: 'message-source', 'data-testid': 'channel-tag' }, `via ${message.source}`));
  }
  // Written in another VS Code window that shares this conversation.
  if (message.from) parts.push(h('span', { class: 'message-source', 'data-testid': 'window-tag' }, `from window ${message.from}`));
  // Your message, sent and answered: edit it and send it again (what came after it is taken back). Shown like a reply's
  // Copy: on hover and while focus is in the message; not while Baton answers (styles/messages.css).
  if (message.role === 'user' && message.status === 'complete' && /^log-\d+$/.test(message.id))
    parts.push(
      h(
        'button',
        {
          type: 'button',
          class: 'link-button message-edit',
          'data-action': 'edit-message',
          'data-testid': 'message-edit',
          title: 'Edit this message and send it again',
        },
        'Edit',
      ),
    );
  if (Number.isFinite(time.getTime())) parts.push(timeEl(time, afterPaint));
  return parts;
}

/** Fills the footer (route, usage, status); hidden when it has none. */
export function fillFooter(footer: HTMLElement, message: ChatMessage): void {
  const parts: Node[] = [];
  if (message.route) parts.push(h('span', { class: 'route', 'data-testid': 'route', title: 'How this request was routed' }, routeText(message.route)));
  const usage = message.usage && usageText(message.usage);
  if (usage) parts.push(h('span', { class: 'usage', 'data-testid': 'usage' }, usage));
  const status = STATUS_LABEL[message.status];
  if (status && message.role !== 'error') parts.push(h('span', { class: 'status', 'data-testid': 'message-status' }, status));
  // Your message waiting behind the answer running now: taken out before it is sent (the host drops its row and gives
  // its text back to the composer); one waiting in the window that runs the conversation is cancelled there.
  if (message.role === 'user' && message.status === 'pending' && /^log-\d+$/.test(message.id))
    parts.push(
      h(
        'button',
        {
          type: 'button',
          class: 'link-button message-withdraw',
          'data-action': 'withdraw-message',
          'data-testid': 'message-withdraw',
          title: 'Take this message out of the queue: it is not sent, and its text goes back into the message box',
        },
        'Remove',
      ),
    );
  // A reply's Markdown, as written (code fences, links and all): what people paste into an issue, a doc or a commit.
  // Shown on hover and while focus is in the message, and always there for the keyboard and screen readers.
  if (message.role === 'assistant' && message.content && message.status !== 'streaming' && message.status !== 'pending')
    parts.push(
      h(
        'button',
        {
          type: 'button',
          class: 'link-button message-copy',
          'data-action': 'copy-message',
          'data-testid': 'message-copy',
          title: 'Copy this reply as Markdown',
        },
        'Copy',
      ),
    );
  // The newest reply to a message of yours (only that one shows it: styles/messages.css) can be asked for again; not an
  // error that names its own way out (Sign in, a setting): that comes first.
  const answer = message.role === 'assistant' || (message.role === 'error' && !message.action);
  if (answer && message.status !== 'streaming' && message.status !== 'pending')
    parts.push(
      h(
        'button',
        {
          type: 'button',
          class: 'link-button message-retry',
          'data-action': 'retry-message',
          'data-testid': 'message-retry',
          title: 'Send your message again for a new answer (this one is taken back)',
        },
        'Retry',
      ),
    );
  footer.replaceChildren(...parts);
  footer.hidden = parts.length === 0;
}

/** Fills the actions (Resend after a reload interrupted it, an error's command); hidden when there are none. */
export function fillActions(actions: HTMLElement, message: ChatMessage, post: (message: WebviewMessage) => void): void {
  const parts: Node[] = [];
  if (message.role === 'user' && message.status === 'interrupted') {
    const resend = button('secondary', { 'data-testid': 'resend' }, 'Resend');
    resend.addEventListener('click', () => post({ type: 'chat/resend', id: message.id }));
    parts.push(h('span', { class: 'interrupted' }, 'Interrupted by a reload — '), resend);
  }
  if (message.action) {
    const { command, label } = message.action;
    const run = button('primary', { 'data-testid': 'error-action', 'data-command': command }, label);
    run.addEventListener('click', () => post({ type: 'command/run', command }));
    parts.push(run);
  }
  actions.replaceChildren(...parts);
  actions.hidden = parts.length === 0;
}
