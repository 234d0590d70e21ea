// One chat message in the log. Markdown roles start as a plain-text placeholder and are rendered when they come near
// the viewport (MessageList decides when); a streaming message keeps its finished blocks' DOM and re-renders only
// the open tail on each flush.
import type { ChatMessage, MessageRole, StoredReference, WebviewMessage } from '../src/shared/protocol';
import { beginsPart, PartsDom } from './bodyParts';
import { storedReferencesEl } from './contextChips';
import { h, setText, toggleAttr } from './dom';
import { highlightLater } from './deferredHighlight';
import { renderAnyBlock } from './markdownRows';
import { resultCardEl } from './resultCard';
import { MarkdownStream } from './markdownStream';
import { fillActions, fillFooter, headerParts, messageLabel } from './messageChrome';
import { RawTail } from './rawTail';
import { RowTail } from './rowTail';
import { sanitizedFragment, setSafeHtml } from './sanitize';
import { renderSliced } from './slicedRender';

export type Post = (message: WebviewMessage) => void;

export class MessageView {
  // The DOM is built on first use of `el` (a shell: article and plain-text body), and header, footer and actions
  // only once rendered: a 1,000-message snapshot is 1,000 small objects, and only mounted shells cost DOM work.
  private elRef: HTMLElement | undefined;
  private body: HTMLElement | undefined;
  private header: HTMLElement | undefined;
  private footer: HTMLElement | undefined;
  private actions: HTMLElement | undefined;
  private message: ChatMessage;
  private rendered = false;
  /** Present while the message streams and its markdown is in the DOM. */
  private stream: MarkdownStream | undefined;
  private tailEl: HTMLElement | undefined;
  /** Where a streamed body's blocks go (a long one's in parts, bodyParts.ts), and how many have finished. */
  private parts: PartsDom | undefined;
  private finished = 0;
  /** The open block's HTML in tailEl; undefined when tailEl holds something else (a raw view, or nothing yet). */
  private lastTail: string | undefined;
  /** The open block shown as text (see rawTail.ts), while it is one. */
  private raw: RawTail | undefined;
  /** The open block shown a row at a time (see rowTail.ts), while it is a list or table. */
  private rows: RowTail | undefined;
  /** The open block turned out not to be rows: it is shown the usual way until it ends. */
  private notRows = false;
  /** Delta text received and not yet applied. */
  private pending = '';
  /** Stops the rest of a settled message's render in slices (see slicedRender.ts), while one is under way. */
  private stopRender: (() => void) | undefined;
  /** Patches waiting for `pending` to be applied first. */
  private readonly deferred: Array<Partial<Omit<ChatMessage, 'id'>>> = [];

  constructor(
    message: ChatMessage,
    private readonly post: Post,
  ) {
    this.message = { ...message };
  }

  get el(): HTMLElement {
    if (!this.elRef) {
      this.body = h('div', { class: 'message-body placeholder' }, this.content);
      this.elRef = h('article', { class: 'message', 'data-testid': 'message' }, this.body);
      this.syncAttributes();
    }
    return this.elRef;
  }

  get isMounted(): boolean {
    return this.elRef !== undefined;
  }

  get id(): string {
    return this.message.id;
  }

  get role(): MessageRole {
    return this.message.role;
  }

  /** The text shown before the message is rendered (and measured for its height): a finished worker's report. */
  get content(): string {
    const result = this.message.workerResult;
    return result ? `${result.worker}: ${result.report}` : this.message.content + this.pending;
  }

  /** The references your message was sent with. */
  get references(): readonly StoredReference[] {
    return this.message.references ?? [];
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

  /**
   * Renders the message for real: header, footer, actions, and markdown (or text, for the user's). Idempotent.
   * `deferHighlight`: its code is coloured, and its time written, just after the next paint (deferredHighlight.ts,
   * timeText.ts), for the messages a snapshot paints first. Messages rendered as they scroll into view colour theirs at once, inside the list's frame
   * budget: deferred there, the colouring landed between the frames of the scroll and made them longer.
   * `until`: when the caller's frame budget ends; a long markdown body renders what fits (at least a block) and the rest
   * in slices over the next frames (slicedRender.ts). A message's render as it came into view was 20–35 ms of script
   * in one frame of a scroll (issue 22).
   * `fromEnd`: the view follows this message's end, so a long body renders its last blocks first (slicedRender.ts).
   */
  render(deferHighlight = false, until?: number, fromEnd = false): void {
    if (this.rendered) return;
    const el = this.el;
    this.rendered = true;
    el.dataset.rendered = '';
    this.header = h('div', { class: 'message-header' });
    this.footer = h('div', { class: 'message-footer' });
    this.actions = h('div', { class: 'message-actions' });
    el.prepend(this.header);
    // What the editor added to the message (kept in the log, so shown again after a reload).
    if (this.message.references?.length) el.append(storedReferencesEl(this.message.references, this.post));
    el.append(this.footer, this.actions);
    this.renderHeader(deferHighlight);
    this.renderFooter();
    this.renderActions();
    this.renderBody(deferHighlight, until, fromEnd);
  }

  appendDelta(delta: string): void {
    this.pending += delta;
  }

  /** Characters of delta text waiting for a frame. */
  get pendingChars(): number {
    return this.pending.length;
  }

  /** Deltas or patches are waiting for a frame. */
  get hasWork(): boolean {
    return this.pending !== '' || this.deferred.length > 0;
  }

  /**
   * Applies up to `budget` characters of the deltas received so far, then any patches that waited for them; true
   * when the DOM changed. The budget bounds one frame's markdown and layout work when text arrives faster than
   * frames (a burst after the panel was hidden, a flood of deltas): the rest goes in the next frames.
   */
  flush(budget = Infinity): boolean {
    let changed = false;
    if (this.pending) {
      const cut = this.rendered && this.pending.length > budget ? budget : this.pending.length;
      const delta = this.pending.slice(0, cut);
      this.pending = this.pending.slice(cut);
      changed = this.applyDelta(delta);
    }
    if (!this.pending && this.deferred.length) {
      for (const patch of this.deferred.splice(0)) this.applyPatch(patch);
      changed = true;
    }
    return changed;
  }

  /**
   * A patch without new content waits behind buffered deltas (the message must not be marked complete before its
   * text is shown); a patch with content replaces the text, so the buffered deltas are moot, unless it only carries
   * the streamed text on (see asDelta).
   */
  update(patch: Partial<Omit<ChatMessage, 'id'>>): void {
    const rest = this.asDelta(patch);
    if (rest) {
      patch = rest;
      if (Object.keys(patch).length === 0) return;
    }
    if (patch.content !== undefined) {
      this.pending = '';
      for (const earlier of this.deferred.splice(0)) this.applyPatch(earlier);
    } else if (this.hasWork) {
      this.deferred.push(patch);
      return;
    }
    this.applyPatch(patch);
  }

  /**
   * A patch whose content is the text streamed so far and maybe more (the host completes a turn with its whole reply,
   * and a note may follow it; another window's reply comes as its whole text so far) while that text's markdown is in
   * the DOM: the rest is taken as a delta, and the patch without its content is returned. So the streamed DOM stays,
   * and only what is new is rendered, within the frames' budget: rendering a 100 KB reply again at once was a task of
   * 0.3–2 s (issue 20). Undefined when the patch must be applied as it is.
   */
  private asDelta(patch: Partial<Omit<ChatMessage, 'id'>>): Partial<Omit<ChatMessage, 'id'>> | undefined {
    if (patch.content === undefined || !this.stream || !this.isStreaming) return undefined;
    if (patch.role !== undefined && patch.role !== this.message.role) return undefined;
    const shown = this.message.content + this.pending;
    if (!patch.content.startsWith(shown)) return undefined;
    // The role it already has is no change (applied, any role re-renders the body).
    const { content, role: _role, ...rest } = patch;
    this.pending += content.slice(shown.length);
    return rest;
  }

  private applyDelta(delta: string): boolean {
    this.message.content += delta;
    if (!this.rendered) {
      this.showPlaceholder();
      return this.isMounted;
    }
    if (!this.stream || !this.tailEl) {
      this.renderBody();
      return true;
    }
    const blocks = this.stream.pushSources(delta);
    this.addFinished(this.tailEl, blocks, true);
    this.showTail(this.stream, this.tailEl, blocks.length > 0);
    return true;
  }

  /**
   * Finished blocks go before the tail, each in its part (the tail moves into a part its block begins). The first,
   * when `firstWasOpen`, may be the list or table the tail showed: its rows stay. The others are rendered, and
   * sanitized together while they go in one place.
   */
  private addFinished(tailEl: HTMLElement, blocks: string[], firstWasOpen: boolean): void {
    let html = '';
    blocks.forEach((src, i) => {
      const rows = i === 0 && firstWasOpen ? this.rows?.finish(src) : undefined;
      if (html && (rows || beginsPart(this.finished))) {
        tailEl.before(sanitizedFragment(html));
        html = '';
      }
      this.parts!.at(this.finished++, tailEl);
      if (rows) tailEl.before(...rows);
      else html += renderAnyBlock(src);
    });
    if (html) tailEl.before(sanitizedFragment(html));
  }

  /** Shows the open block: as text while it is a fence or too long (see rawTail.ts), else its markdown, sanitized. */
  private showTail(stream: MarkdownStream, tailEl: HTMLElement, newBlock: boolean): void {
    const src = stream.tailSource;
    // The open block's DOM is made where its finished DOM goes: in the part it begins, once it is more than blank.
    if (/\S/.test(src)) this.parts!.at(this.finished, tailEl);
    if (newBlock) {
      this.raw = this.rows = undefined;
      this.notRows = false;
    }
    if (!this.raw && !this.notRows) {
      if (!this.rows) {
        const rows = RowTail.for(src, tailEl);
        if (rows === null) this.notRows = true;
        else if (rows) {
          this.rows = rows;
          tailEl.replaceChildren();
          this.lastTail = undefined;
        }
      }
      if (this.rows) {
        if (this.rows.update(src)) return;
        this.rows.discard();
        this.rows = undefined;
        this.notRows = true;
      }
    }
    if (!this.raw) {
      this.raw = RawTail.for(src);
      if (this.raw) {
        tailEl.replaceChildren(this.raw.el);
        this.lastTail = undefined;
      }
    }
    if (this.raw) {
      this.raw.update(src);
      return;
    }
    const tail = stream.tailHtml();
    if (tail !== this.lastTail) {
      setSafeHtml(tailEl, tail);
      this.lastTail = tail;
    }
  }

  private applyPatch(patch: Partial<Omit<ChatMessage, 'id'>>): void {
    const wasStreaming = this.isStreaming;
    this.message = { ...this.message, ...patch };
    this.syncAttributes();
    if (!this.rendered) {
      if (patch.content !== undefined) this.showPlaceholder();
      return;
    }
    // A message of yours offers Edit once it is answered (messageChrome.ts): its status is in the header too.
    const yoursAnswered = patch.status !== undefined && this.message.role === 'user';
    if (patch.role !== undefined || patch.source !== undefined || patch.ts !== undefined || patch.from !== undefined || yoursAnswered) this.renderHeader();
    this.renderFooter();
    this.renderActions();
    if (patch.content !== undefined || patch.role !== undefined) this.renderBody();
    else if (wasStreaming && !this.isStreaming) this.endStream();
  }

  /** A rough height for the placeholder, so the scrollbar is about right before older messages are rendered. */
  estimateHeight(charsPerLine: number): number {
    const text = this.content;
    let lines = 0;
    for (let start = 0; start <= text.length && lines < 4000;) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      lines += Math.max(1, Math.ceil((end - start) / charsPerLine));
      start = end + 1;
    }
    return 56 + lines * 20;
  }

  private syncAttributes(): void {
    const { elRef: el, message } = this;
    if (!el) return;
    el.dataset.role = message.role;
    el.dataset.status = message.status;
    el.dataset.id = message.id;
    el.setAttribute('aria-label', messageLabel(message));
    // Screen readers wait for a busy region: the reply is read once it is complete, not character by character.
    toggleAttr(el, 'aria-busy', this.isStreaming);
  }

  private renderHeader(afterPaint = false): void {
    if (this.header) this.header.replaceChildren(...headerParts(this.message, afterPaint));
  }

  private renderFooter(): void {
    if (this.footer) fillFooter(this.footer, this.message);
  }

  private renderActions(): void {
    if (this.actions) fillActions(this.actions, this.message, this.post);
  }

  private showPlaceholder(): void {
    if (this.body) setText(this.body, this.content);
  }

  private renderBody(deferHighlight = false, until?: number, fromEnd = false): void {
    const { body, message } = this;
    if (!body) return;
    this.stopRender?.();
    this.stopRender = undefined;
    this.stream = undefined;
    body.classList.remove('placeholder');
    if (!this.isMarkdown) {
      body.classList.add('plain');
      setText(body, message.content);
      return;
    }
    this.tailEl = undefined;
    // A finished worker: its card, never the wrapper the model was given.
    if (message.workerResult) {
      body.classList.remove('markdown');
      body.replaceChildren(resultCardEl(message.workerResult, this.post, deferHighlight));
      if (deferHighlight) highlightLater(body);
      return;
    }
    body.classList.add('markdown');
    if (!this.isStreaming) {
      this.stream = undefined;
      // A long reply in frame-sized slices; its deferred code is queued once it is all in.
      this.stopRender = renderSliced(body, message.content, { deferHighlight }, deferHighlight ? () => highlightLater(body) : undefined, until, fromEnd);
      return;
    }
    this.stream = new MarkdownStream();
    this.tailEl = h('div', { class: 'md-tail' });
    body.replaceChildren(this.tailEl);
    this.parts = new PartsDom(body);
    this.finished = 0;
    this.lastTail = undefined;
    this.raw = this.rows = undefined;
    this.notRows = false;
    this.addFinished(this.tailEl, this.stream.pushSources(message.content), false);
    this.showTail(this.stream, this.tailEl, true);
  }

  /**
   * The open tail becomes an ordinary last block, rendered once more as finished (its code highlighted), so the
   * DOM is the one a one-shot render of the whole text gives.
   */
  private endStream(): void {
    if (this.tailEl && this.stream) {
      // The last line is complete now: the blocks it ends go before the tail (the first is the open one), as a delta's.
      const blocks = this.stream.endSources();
      this.addFinished(this.tailEl, blocks, true);
      const last = this.stream.tailSource;
      if (/\S/.test(last)) this.addFinished(this.tailEl, [last], blocks.length === 0);
      this.tailEl.remove();
    }
    this.tailEl = undefined;
    this.parts = undefined;
    this.stream = undefined;
    this.raw = this.rows = undefined;
    this.notRows = false;
  }
}
