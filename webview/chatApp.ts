// The chat panel: builds the UI, applies host messages in order, and posts the user's intents. The host owns all
// data; this side keeps only what the user was doing (draft, scroll) in the webview state.
import type { HostMessage, PanelState, Snapshot } from '../src/shared/protocol';
import { Announcer, announceCopies, settledSpeech } from './announcer';
import { Composer } from './composer';
import { onComposerReturn, SentChips } from './composerReturns';
import { ConversationList } from './conversationList';
import { acceptDrops, ContextBar } from './contextChips';
import { onContentClick } from './contentActions';
import { h } from './dom';
import { Drafts } from './drafts';
import { EmptyState } from './emptyState';
import { Header } from './header';
import { MessageEdit } from './messageEdit';
import { MessageList } from './messageList';
import { contentOf, lastUserText, stoppedReply, userBefore } from './messageOrder';
import type { Post } from './messageView';
import { PermissionList } from './permissionList';
import { permissionAsk } from '../src/shared/permissionAsk';
import { visibleText } from '../src/shared/visibleText';
import { SeqGate } from './seqGate';
import { SetupBanner } from './setupBanner';
import type { UiState, VsCodeApi } from './vscodeApi';
import { UiStateSaver } from './uiStateSaver';
import { WorkerStrip } from './workerStrip';

const HOST_MESSAGE_TYPES: ReadonlySet<string> = new Set<HostMessage['type']>([
  'snapshot',
  'message/append',
  'message/delta',
  'message/update',
  'workers/update',
  'permission/request',
  'permission/resolved',
  'state',
  'composer/focus',
  'context/implicit',
  'context/added',
  'context/refused',
  'chat/refused',
  'edit/refused',
  'chat/withdrawn',
  'conversations/update',
]);

/** If a requested snapshot has not come after this long, ask again (the request or the answer may have been lost). */
const SNAPSHOT_RETRY_MS = 3000;

export function isHostMessage(data: unknown): data is HostMessage {
  if (!data || typeof data !== 'object') return false;
  const { type, seq } = data as { type?: unknown; seq?: unknown };
  return typeof type === 'string' && HOST_MESSAGE_TYPES.has(type) && typeof seq === 'number' && Number.isFinite(seq);
}

export class ChatApp {
  private readonly gate = new SeqGate();
  private readonly post: Post;
  private readonly ui: UiState;
  /** What was typed in the conversations not shown. */
  private readonly drafts: Drafts;
  /** Your message being edited, if one is. */
  private readonly edit: MessageEdit;
  private readonly header: Header;
  private readonly conversationList: ConversationList;
  private readonly setup: SetupBanner;
  private readonly empty: EmptyState;
  private readonly list: MessageList;
  private readonly permissions: PermissionList;
  private readonly workers: WorkerStrip;
  private readonly composer: Composer;
  private readonly scroller: HTMLElement;
  private readonly announcer = new Announcer();
  private state: PanelState = { busy: false, model: '', routingAuto: true };
  private lastSent: string | undefined;
  private readonly contextBar: ContextBar;
  /** The chips of the last messages sent, by text: a refused one's are put back (SentChips). */
  private readonly sentChips = new SentChips();
  private restored = false;
  /** The conversation the last snapshot showed. */
  private shownConversation: string | undefined;
  private snapshotTimer: ReturnType<typeof setTimeout> | undefined;
  /** The panel shows the first page only: the whole snapshot is still to come (and asked for again if it does not). */
  private partial = false;
  private readonly saver = new UiStateSaver(() => this.writeState());
  /** "Newest": shown while the view does not follow the newest content. */
  private readonly jump: HTMLButtonElement;

  constructor(
    root: HTMLElement,
    private readonly api: VsCodeApi,
  ) {
    this.post = (message) => api.postMessage(message);
    this.ui = { ...api.getState() };
    this.drafts = new Drafts(this.ui.drafts);
    this.header = new Header(this.post);
    this.conversationList = new ConversationList(this.post);
    this.setup = new SetupBanner(this.post);
    this.empty = new EmptyState((prompt) => this.onExample(prompt));
    this.scroller = h('main', { class: 'scroller', 'aria-label': 'Chat' });
    this.list = new MessageList(this.scroller, this.post, {
      onCompleted: (view) => this.announce(settledSpeech(view.el)),
      onCountChanged: (count) => this.empty.setVisible(count === 0),
      onLeave: () => this.composer.focus(),
      onFollowChanged: (following) => {
        // Back at the newest content by a scroll while the button had the focus: the focus goes to the composer
        // rather than nowhere.
        const hadFocus = following && this.jump === document.activeElement;
        this.jump.hidden = following;
        if (hadFocus) this.composer.focus();
      },
    });
    // Scrolled away from the newest content (to read an older message while a reply streams, say): one click back to
    // it, and the view follows it again. VS Code's chat offers the same.
    this.jump = h(
      'button',
      { type: 'button', class: 'jump-newest', 'data-testid': 'jump-newest', title: 'Scroll to the newest message', hidden: true },
      '\u2193 Newest',
    );
    this.jump.addEventListener('click', () => {
      this.list.scrollToEnd();
      this.composer.focus();
    });
    this.permissions = new PermissionList(this.post, () => this.composer.focus());
    this.workers = new WorkerStrip(this.post, (text) => this.announce(text));
    this.contextBar = new ContextBar(
      this.post,
      (chips) => this.saveState({ chips }),
      () => this.composer.focus(),
    );
    if (this.ui.chips?.length) this.contextBar.restore(this.ui.chips);
    this.edit = new MessageEdit({
      text: () => this.composer.textarea.value,
      fill: (text) => this.composer.fill(text),
      messages: () => this.list.messages,
      chips: () => this.contextBar.attached,
      setChips: (chips) => this.contextBar.restore(chips),
      announce: (text) => this.announce(text),
      save: (editing) => this.saveState({ editing }),
    });
    this.composer = new Composer({
      draft: this.ui.draft ?? '',
      send: (text) => this.send(text),
      stop: () => this.post({ type: 'chat/stop', ...stoppedReply(this.list.messages) }),
      recall: () => this.lastSent ?? lastUserText(this.list.messages),
      onDraft: (draft) => this.saveState({ draft, draftOf: this.shownConversation }),
      onEscape: () => {
        if (this.edit.id === undefined) return false;
        this.edit.cancel();
        return true;
      },
      context: this.contextBar,
      pick: (kind) => this.post({ type: 'context/pick', kind }),
    });
    this.scroller.append(this.empty.el, this.list.el, this.permissions.el);
    // The button floats over the conversation's bottom edge: a box around the scroller to place it in.
    const chat = h('div', { class: 'chat-area' }, this.scroller, this.jump);
    root.replaceChildren(this.header.el, this.conversationList.el, this.setup.el, chat, this.workers.el, this.edit.el, this.composer.el, this.announcer.el);
    root.classList.add('app');

    this.scroller.addEventListener('click', (e) =>
      onContentClick(e, {
        post: this.post,
        contentOf: (id) => contentOf(this.list.messages, id),
        edit: (id) => {
          if (!this.state.busy) this.edit.start(id);
        },
        retry: (id) => {
          const asked = userBefore(this.list.messages, id);
          if (asked && !this.state.busy) this.post({ type: 'chat/retry', id: asked });
        },
      }),
    );
    announceCopies(this.scroller, (text) => this.announce(text));
    // Middle-click would open a link in a new window of the webview; the host decides where links go.
    this.scroller.addEventListener('auxclick', (e) => {
      if ((e.target as Element).closest?.('a[href]')) e.preventDefault();
    });
    this.scroller.addEventListener('scroll', () => this.saveState({}), { passive: true });
    acceptDrops(root, this.post);
    window.addEventListener('message', (e: MessageEvent) => this.receive(e.data));
    // The view focused from outside (Baton: Open Chat, a keybinding, F6) with nothing focused inside: the composer.
    window.addEventListener('focus', () => {
      if (document.activeElement === document.body || document.activeElement === null) this.composer.focus();
    });
  }

  /**
   * Says hello; the host answers with a snapshot. With the first page the host wrote into the HTML (the newest
   * messages, see firstPage in the protocol), that page is shown at once and `ready` is said once it is painted:
   * the whole snapshot then comes after the paint instead of before it, and replaces the page without rendering twice
   * what it already shows (MessageList.reset keeps the views of unchanged messages).
   */
  start(firstPage?: unknown): void {
    if (this.ui.draft) this.composer.focus();
    if (isHostMessage(firstPage) && firstPage.type === 'snapshot') {
      this.receive(firstPage);
      if (!this.gate.awaitingSnapshot) {
        // At the start of the frame after the first page's: it is on screen by then.
        requestAnimationFrame(() => requestAnimationFrame(() => this.sayReady()));
        return;
      }
    } else if (firstPage !== undefined) console.warn('[baton] the first page in the HTML is not a snapshot; waiting for the snapshot');
    this.sayReady();
  }

  private sayReady(): void {
    this.post({ type: 'ready' });
    this.armSnapshotRetry();
  }

  receive(data: unknown): void {
    if (!isHostMessage(data)) return;
    const decision = this.gate.accept(data);
    if (decision === 'request') this.requestSnapshot();
    if (decision !== 'apply') return;
    try {
      this.handle(data);
    } catch (err) {
      // A message of the right type but the wrong shape: drop it and rebuild from the host's truth.
      console.warn('[baton] a panel message could not be applied; asking for a snapshot', err);
      this.requestSnapshot();
    }
  }

  private handle(message: HostMessage): void {
    switch (message.type) {
      case 'snapshot':
        this.applySnapshot(message.snapshot);
        break;
      case 'message/append':
        this.list.append(message.message);
        // The oldest messages may have left the panel (messageOrder.ts): an edit of one of them ends with it.
        if (this.edit.id !== undefined && !this.list.get(this.edit.id)) this.edit.end();
        break;
      case 'message/delta':
        if (!this.list.delta(message.id, message.delta)) this.outOfSync();
        break;
      case 'message/update':
        if (!this.list.update(message.id, message.patch)) this.outOfSync();
        break;
      case 'workers/update':
        this.list.keepInView(() => this.workers.update(message.workers));
        break;
      case 'permission/request':
        this.permissions.request(message.request);
        this.list.stick();
        this.announce(`${visibleText(message.request.worker)} ${permissionAsk(message.request.kind)}`);
        break;
      case 'permission/resolved':
        this.permissions.resolve(message.id);
        break;
      case 'state':
        this.applyState(message.state);
        break;
      case 'composer/focus':
        this.composer.focus();
        break;
      case 'context/implicit':
        this.contextBar.setImplicit(message.chip);
        break;
      case 'context/added':
        this.contextBar.add(message.chips);
        this.composer.focus();
        break;
      case 'context/refused':
        // Shown in the notice and said here (the notice is no live region: it was heard twice).
        this.contextBar.showNotice(message.message);
        this.announce(message.message);
        break;
      case 'chat/refused':
      case 'edit/refused':
      case 'chat/withdrawn':
        onComposerReturn(message, {
          composer: this.composer,
          contextBar: this.contextBar,
          edit: this.edit,
          shows: (id) => this.list.get(id) !== undefined,
          chipsSent: (text) => this.sentChips.of(text),
          announce: (text) => this.announce(text),
        });
        break;
      case 'conversations/update':
        this.conversationList.update(message.active, message.conversations);
        break;
      default: {
        const unknown: never = message;
        void unknown;
      }
    }
  }

  private applySnapshot(snapshot: Snapshot): void {
    clearTimeout(this.snapshotTimer);
    this.snapshotTimer = undefined;
    // Scroll position is restored once, for the snapshot that follows a reload; later snapshots keep the view. Not for
    // the first page, which leaves older messages out: the saved offset means something only with all of them.
    const restore = this.restored || snapshot.older ? undefined : { scrollTop: this.ui.scrollTop, pinned: this.ui.pinned, anchor: this.ui.anchor };
    if (!snapshot.older) this.restored = true;
    this.partial = !!snapshot.older;
    // Another conversation: its history replaces this one's, read from its end (the saved scroll was this one's).
    const switched = this.shownConversation !== undefined && snapshot.conversation !== this.shownConversation;
    // An edit ends with the conversation it was in (its draft back first, so it goes aside with it).
    if (this.edit.id !== undefined && snapshot.conversation !== this.shownConversation) this.edit.cancel();
    // The composer's text stays with the conversation it was typed in (the first snapshot after a reload, too).
    const typedIn = this.shownConversation ?? this.ui.draftOf;
    if (snapshot.conversation && typedIn !== undefined && typedIn !== snapshot.conversation) {
      const draft = this.drafts.swap(typedIn, this.composer.textarea.value, snapshot.conversation);
      this.composer.setText(draft);
      this.saveState({ draft, draftOf: snapshot.conversation, drafts: this.drafts.toJSON() });
    }
    this.shownConversation = snapshot.conversation;
    if (snapshot.conversation && snapshot.conversations) this.conversationList.update(snapshot.conversation, snapshot.conversations);
    this.list.reset(snapshot.messages, switched ? { scrollTop: 0, pinned: true } : restore);
    this.workers.update(snapshot.workers);
    this.permissions.reset(snapshot.permissions);
    this.contextBar.setImplicit(snapshot.implicit);
    if (snapshot.attach?.length) this.contextBar.add(snapshot.attach);
    if (snapshot.notice) this.contextBar.showNotice(snapshot.notice.message);
    this.applyState(snapshot.state);
    if (typeof snapshot.reveal === 'string') this.list.reveal(snapshot.reveal);
    // An edit saved before a reload of the view goes on: once, with the whole history, in its conversation, idle.
    const saved = snapshot.older ? undefined : this.ui.editing;
    if (saved) this.saveState({ editing: undefined });
    this.edit.afterSnapshot((id) => !!this.list.get(id), snapshot.conversation === typedIn && !snapshot.state.busy ? saved : undefined);
  }

  private applyState(state: PanelState): void {
    this.state = state;
    this.header.setState(state);
    this.composer.setBusy(state.busy, state.queued ?? 0);
    // An answer began (a worker's result, another window): what the edit would take back is changing under it.
    if (state.busy && this.edit.id !== undefined) this.edit.cancel();
    this.setup.set(state.setupHint);
    // The banner's button is then the one way to sign in: an error's own "Sign in" is hidden (styles/setupBanner.css).
    document.body.classList.toggle('setup-shown', !!state.setupHint);
    document.body.dataset.busy = String(state.busy);
    document.body.dataset.runtime = state.runtimeRestarting ? 'restarting' : 'ready';
  }

  private send(text: string): void {
    this.lastSent = text;
    const { refs, chips } = this.contextBar.takeForSend();
    this.sentChips.note(text, chips);
    const editing = this.edit.sent();
    const references = refs.length ? { references: refs } : {};
    this.post(editing ? { type: 'chat/edit', id: editing.id, text, ...references } : { type: 'chat/send', text, ...references });
    this.list.scrollToEnd();
  }

  private onExample(prompt: string): void {
    // Without a working model the example would only produce an error; let the user read it and set up first.
    if (this.state.setupHint) this.composer.fill(prompt);
    else this.send(prompt);
  }

  private outOfSync(): void {
    this.gate.invalidate();
    this.requestSnapshot();
  }

  private requestSnapshot(): void {
    this.post({ type: 'snapshot/request' });
    this.armSnapshotRetry();
  }

  private armSnapshotRetry(): void {
    clearTimeout(this.snapshotTimer);
    this.snapshotTimer = setTimeout(() => {
      if (this.gate.awaitingSnapshot || this.partial) this.requestSnapshot();
    }, SNAPSHOT_RETRY_MS);
  }

  private announce(text: string): void {
    this.announcer.say(text);
  }

  /** Saves UI intent (uiStateSaver.ts: soon, and at once when the view goes away). */
  private saveState(patch: Partial<UiState>): void {
    Object.assign(this.ui, patch);
    this.saver.soon();
  }
  private writeState(): void {
    // Not while the first page alone is shown: the position saved before a reload is still to be restored.
    if (!this.partial) {
      this.ui.scrollTop = Math.round(this.scroller.scrollTop);
      this.ui.pinned = this.list.pinned;
      this.ui.anchor = this.list.readingAnchor();
    }
    const { draft, draftOf, drafts, scrollTop, pinned, anchor, chips, editing } = this.ui;
    this.api.setState({ draft, draftOf, drafts, scrollTop, pinned, anchor, chips, editing });
  }
}
