// The chat's side of editor context: the implicit chip, the picker's and drop's answers, and turning a
// message's references into prompt text and log meta before it is queued. Sends that need gathering
// are chained, so messages reach the orchestrator in the order the user sent them even when an
// earlier one waits on a file read or git.
import type { HostMessageBody } from '../../shared/protocol';
import type { Logger } from '../util/logger';
import type { AttachedReference, AttachResult, ContextErrorKind, EditorContextPort } from './contextPort';
import { formatReferences, toStored } from './promptTags';
import type { Reference, ReferenceChip, ReferenceKind, StoredReference } from './references';

/** What a prepared message adds to the user's text. */
export interface PreparedContext {
  /** Appended to the prompt after the user's words (not to the logged text). */
  prompt: string;
  stored: StoredReference[];
}

export class ChatContext {
  private implicitChip: ReferenceChip | undefined;
  private chain: Promise<void> = Promise.resolve();
  private pendingSends = 0;
  /**
   * Chips added from outside the panel (a command) that no message has taken yet: they ride on the
   * snapshot too, so a panel that was not open when they were added still shows them.
   */
  private unclaimed: ReferenceChip[] = [];
  /** The last refusal of an attach, until something is attached or sent: a panel that opens later still says why. */
  private notice: { kind: ContextErrorKind; message: string } | undefined;

  constructor(
    private readonly port: EditorContextPort | undefined,
    private readonly post: (body: HostMessageBody) => void,
    private readonly logger: Logger,
  ) {}

  get implicit(): ReferenceChip | undefined {
    return this.implicitChip;
  }

  setImplicit(chip: ReferenceChip | undefined): void {
    if (chip?.key === this.implicitChip?.key && chip?.detail === this.implicitChip?.detail) return;
    this.implicitChip = chip;
    this.post({ type: 'context/implicit', ...(chip ? { chip } : {}) });
  }

  /** True when a send can go straight through: no references to read and none still being read. */
  canSendNow(refs: readonly AttachedReference[] | undefined): boolean {
    return !refs?.length && this.pendingSends === 0;
  }

  /**
   * Reads the references, then calls `send` with the prepared context, in send order. A failure
   * refuses the whole message (nothing is sent half-built) and hands text and chips back to the composer.
   */
  sendWith(text: string, refs: readonly AttachedReference[], send: (context: PreparedContext | undefined) => void): Promise<void> {
    this.pendingSends++;
    const step = this.chain.then(async () => {
      try {
        const read = await this.read(refs);
        if (!read.ok) return this.refuse(text, read.kind, read.message);
        send(read.context);
      } finally {
        this.pendingSends--;
      }
    });
    this.chain = step.catch(() => undefined);
    return step;
  }

  /** A message's references read into its context, or why they cannot be (nothing is posted: the caller says it). */
  async read(
    refs: readonly AttachedReference[],
  ): Promise<{ ok: true; context: PreparedContext | undefined } | { ok: false; kind: ContextErrorKind; message: string }> {
    if (!refs.length) return { ok: true, context: this.hintOnly() };
    if (!this.port) return { ok: false, kind: 'unavailable', message: 'Editor context is not available here, so the message was not sent.' };
    try {
      const gathered = await this.port.gather(refs);
      if (!gathered.ok) return { ok: false, kind: gathered.error.kind, message: gathered.error.message };
      const prompt = [formatReferences(gathered.references), this.port.workspaceHint?.()].filter(Boolean).join('\n\n');
      return { ok: true, context: { prompt, stored: gathered.references.map(toStored) } };
    } catch (err) {
      this.logger.error('Could not read the references of a message', err);
      return { ok: false, kind: 'unreadable', message: `The attached context could not be read: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  /**
   * read(), for references chosen outside the panel (the Chat view's): an implicit one (the active editor, added by
   * VS Code, not chosen) never refuses the message. One that cannot go (a protected file, one outside the workspace)
   * is left out, as the panel offers no implicit chip for it; the user's own still refuse the message as they do there.
   */
  async readLenient(
    refs: readonly AttachedReference[],
  ): Promise<{ ok: true; context: PreparedContext | undefined } | { ok: false; kind: ContextErrorKind; message: string }> {
    const read = await this.read(refs);
    return read.ok || !refs.some((r) => r.implicit) ? read : this.read(refs.filter((r) => !r.implicit));
  }

  /** The context of a message without references: only the workspace hint, if there is one. */
  hintOnly(): PreparedContext | undefined {
    const hint = this.port?.workspaceHint?.();
    return hint ? { prompt: hint, stored: [] } : undefined;
  }

  pick(kind: ReferenceKind): Promise<void> {
    return this.attach(this.port?.pick(kind));
  }

  drop(uris: string[]): Promise<void> {
    return this.attach(this.port?.drop(uris));
  }

  /** Chips from a gesture outside the panel (Add Selection / Add File to Chat) or from the picker. */
  add(chips: ReferenceChip[]): void {
    if (!chips.length) return;
    this.notice = undefined;
    this.unclaimed = [...this.unclaimed.filter((c) => !chips.some((n) => n.key === c.key)), ...chips].slice(-20);
    this.post({ type: 'context/added', chips });
  }

  /** The refusal the panel should still show, for the snapshot. */
  get pendingNotice(): { kind: ContextErrorKind; message: string } | undefined {
    return this.notice;
  }

  /** Chips added but not sent yet, for the snapshot. */
  get pendingChips(): ReferenceChip[] {
    return [...this.unclaimed];
  }

  /** The user removed an attached chip before sending: it is no longer pending. */
  remove(key: string): void {
    this.unclaimed = this.unclaimed.filter((c) => c.key !== key);
  }

  /** A message went out: the composer has taken (or dropped) every chip it had. */
  claimAll(): void {
    this.unclaimed = [];
    this.notice = undefined;
  }

  refused(kind: ContextErrorKind, message: string): void {
    this.notice = { kind, message };
    this.post({ type: 'context/refused', kind, message });
  }

  open(ref: Reference): void {
    this.port?.open(ref);
  }

  private async attach(result: Promise<AttachResult> | undefined): Promise<void> {
    if (!result) return this.refused('unavailable', 'Editor context is not available here.');
    try {
      const r = await result;
      if (r.ok) this.add(r.chips);
      else this.refused(r.error.kind, r.error.message);
    } catch (err) {
      this.logger.error('Attaching context failed', err);
      this.refused('unreadable', `Could not attach that: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private refuse(text: string, kind: ContextErrorKind, message: string): void {
    this.logger.warn(`A message was not sent: ${message}`);
    this.post({ type: 'chat/refused', text, kind, message });
  }
}
