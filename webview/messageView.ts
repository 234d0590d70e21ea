// One chat message in the log. Markdown roles start as a plain-text placeholder and are rendered when they come near
// the viewport (MessageList decides when); a streaming message keeps its finished blocks' DOM and re-renders only
// the open tail on each flush.
import type { ChatMessage, MessageRole, RouteInfo, UsageInfo, WebviewMessage } from '../src/shared/protocol';
import { h, setText, toggleAttr } from './dom';
import { MarkdownStream, renderMarkdown } from './markdown';

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

export class MessageView {
  readonly el: HTMLElement;
  private readonly header: HTMLElement;
  private readonly body: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly actions: HTMLElement;
  private message: ChatMessage;
  private rendered = false;
  /** Present while the message streams and its markdown is in the DOM. */
  private stream: MarkdownStream | undefined;
  private tailEl: HTMLElement | undefined;
  private lastTail = '';
  /** Delta text received since the last frame. */
  private pending = '';

  constructor(
    message: ChatMessage,
    private readonly post: Post,
  ) {
    this.message = { ...message };
    this.header = h('div', { class: 'message-header' });
    this.body = h('div', { class: 'message-body' });
    this.footer = h('div', { class: 'message-footer' });
    this.actions = h('div', { class: 'message-actions' });
    this.el = h('article', { class: 'message', 'data-testid': 'message' }, this.header, this.body, this.footer, this.actions);
    this.syncAttributes();
    this.renderHeader();
    this.renderFooter();
    this.renderActions();
    if (this.isMarkdown) this.showPlaceholder();
    else this.renderBody();
  }

  get id(): string {
    return this.message.id;
  }

  get role(): MessageRole {
    return this.message.role;
  }

  get content(): string {
    return this.message.content + this.pending;
  }

  get isRendered(): boolean {
    return this.rendered;
  }

  get isStreaming(): boolean {
    return this.message.status === 'streaming';
  }

  private get isMarkdown(): boolean {
    return this.message.role !== 'user';
  }

  /** Renders the body for real (markdown, or text for user messages). Idempotent. */
  render(): void {
    if (this.rendered) return;
    this.renderBody();
  }

  appendDelta(delta: string): void {
    this.pending += delta;
  }

  /** Applies the deltas received since the last frame; true when the DOM changed. */
  flush(): boolean {
    if (!this.pending) return false;
    const delta = this.pending;
    this.pending = '';
    this.message.content += delta;
    if (!this.rendered) {
      this.showPlaceholder();
      return true;
    }
    if (!this.stream || !this.tailEl) {
      this.renderBody();
      return true;
    }
    const { done, tail } = this.stream.push(delta);
    if (done) this.tailEl.insertAdjacentHTML('beforebegin', done);
    if (tail !== this.lastTail) {
      this.tailEl.innerHTML = tail;
      this.lastTail = tail;
    }
    return true;
  }

  update(patch: Partial<Omit<ChatMessage, 'id'>>): void {
    this.flush();
    const wasStreaming = this.isStreaming;
    this.message = { ...this.message, ...patch };
    this.syncAttributes();
    if (patch.role !== undefined || patch.source !== undefined) this.renderHeader();
    this.renderFooter();
    this.renderActions();
    if (patch.content !== undefined || patch.role !== undefined) {
      this.stream = undefined;
      if (this.rendered || !this.isMarkdown) this.renderBody();
      else this.showPlaceholder();
    } else if (wasStreaming && !this.isStreaming) this.endStream();
  }

  /** A rough height for the placeholder, so the scrollbar is about right before older messages are rendered. */
  estimateHeight(charsPerLine: number): number {
    let lines = 0;
    for (const line of this.content.split('\n', 2000)) lines += Math.max(1, Math.ceil(line.length / charsPerLine));
    return 56 + Math.min(lines, 4000) * 20;
  }

  private syncAttributes(): void {
    const { el, message } = this;
    el.dataset.role = message.role;
    el.dataset.status = message.status;
    el.dataset.id = message.id;
    el.setAttribute('aria-label', `${ROLE_LABEL[message.role]}${message.role === 'background' && message.source ? ` from ${message.source}` : ''}`);
    // Screen readers wait for a busy region: the reply is read once it is complete, not character by character.
    toggleAttr(el, 'aria-busy', this.isStreaming);
  }

  private renderHeader(): void {
    const { message } = this;
    const time = new Date(message.ts);
    const parts: HTMLElement[] = [];
    if (message.role === 'background') {
      parts.push(h('span', { class: 'message-author badge', 'data-testid': 'background-badge' }, ROLE_LABEL.background));
      if (message.source) parts.push(h('span', { class: 'message-source' }, message.source));
    } else parts.push(h('span', { class: 'message-author' }, ROLE_LABEL[message.role]));
    if (Number.isFinite(time.getTime())) {
      parts.push(h('time', { class: 'message-time', datetime: time.toISOString(), title: time.toLocaleString() }, time.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })));
    }
    this.header.replaceChildren(...parts);
  }

  private renderFooter(): void {
    const { message } = this;
    const parts: Node[] = [];
    if (message.route) parts.push(h('span', { class: 'route', 'data-testid': 'route', title: 'How this request was routed' }, routeText(message.route)));
    const usage = message.usage && usageText(message.usage);
    if (usage) parts.push(h('span', { class: 'usage', 'data-testid': 'usage' }, usage));
    const status = STATUS_LABEL[message.status];
    if (status && message.role !== 'error') parts.push(h('span', { class: 'status', 'data-testid': 'message-status' }, status));
    this.footer.replaceChildren(...parts);
    this.footer.hidden = parts.length === 0;
  }

  private renderActions(): void {
    const { message } = this;
    const parts: Node[] = [];
    if (message.role === 'user' && message.status === 'interrupted') {
      const resend = h('vscode-button', { appearance: 'secondary', 'data-testid': 'resend' }, 'Resend');
      resend.addEventListener('click', () => this.post({ type: 'chat/resend', id: message.id }));
      parts.push(h('span', { class: 'interrupted' }, 'Interrupted by a reload — '), resend);
    }
    if (message.action) {
      const { command, label } = message.action;
      const button = h('vscode-button', { 'data-testid': 'error-action' }, label);
      button.addEventListener('click', () => this.post({ type: 'command/run', command }));
      parts.push(button);
    }
    this.actions.replaceChildren(...parts);
    this.actions.hidden = parts.length === 0;
  }

  private showPlaceholder(): void {
    this.rendered = false;
    this.body.classList.add('placeholder');
    setText(this.body, this.message.content);
  }

  private renderBody(): void {
    const { body, message } = this;
    this.rendered = true;
    this.el.dataset.rendered = '';
    body.classList.remove('placeholder');
    if (!this.isMarkdown) {
      body.classList.add('plain');
      setText(body, message.content);
      return;
    }
    body.classList.add('markdown');
    this.tailEl = undefined;
    if (!this.isStreaming) {
      this.stream = undefined;
      body.innerHTML = renderMarkdown(message.content);
      return;
    }
    this.stream = new MarkdownStream();
    const { done, tail } = this.stream.push(message.content);
    body.innerHTML = done;
    this.tailEl = h('div', { class: 'md-tail' });
    this.tailEl.innerHTML = tail;
    this.lastTail = tail;
    body.append(this.tailEl);
  }

  /** The open tail becomes an ordinary last block; nothing is re-rendered. */
  private endStream(): void {
    if (this.tailEl) this.tailEl.replaceWith(...Array.from(this.tailEl.childNodes));
    this.tailEl = undefined;
    this.stream = undefined;
  }
}

export function routeText(route: RouteInfo): string {
  return [route.tier, route.model, route.reason].join(' · ');
}

export function usageText(usage: UsageInfo): string {
  const fmt = (n: number): string => n.toLocaleString('en-US');
  const parts: string[] = [];
  if (usage.inputTokens !== undefined) parts.push(`${fmt(usage.inputTokens)} in`);
  if (usage.outputTokens !== undefined) parts.push(`${fmt(usage.outputTokens)} out`);
  return parts.length ? `${parts.join(' / ')} tokens` : '';
}
