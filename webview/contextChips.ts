// The context that goes with the next message, as chips above the composer: the active editor's file or
// selection (implicit, removable for one message) and what the user attached (# picker, drop, commands).
// Only types come from the protocol: the host builds every chip, the webview never reads a file. (No zod
// here: the webview bundle has a size budget.)
import { MAX_REFERENCES } from '../src/shared/referenceLimit';
import type { ReferenceChip, StoredReference, WebviewMessage } from '../src/shared/protocol';
import { h } from './dom';

type AttachedReference = NonNullable<Extract<WebviewMessage, { type: 'chat/send' }>['references']>[number];

const KIND_LABEL: Record<ReferenceChip['ref']['kind'], string> = {
  file: 'File',
  folder: 'Folder',
  selection: 'Selection',
  problems: 'Problems',
  changes: 'Changes',
};
/** The host takes at most this many references a message, the active editor's included (protocol.ts). */
const MAX_CHIPS = MAX_REFERENCES;

export class ContextBar {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly notice: HTMLElement;
  private chips: ReferenceChip[] = [];
  private implicit: ReferenceChip | undefined;
  /** The implicit chip the user removed; it stays out until the next message or another file/selection. */
  private dismissedKey: string | undefined;

  constructor(
    private readonly post: (message: WebviewMessage) => void,
    private readonly onChange: (chips: ReferenceChip[]) => void,
    /** Where the focus goes when the chip that had it is removed and no other is left. */
    private readonly onFocusLost: () => void = () => undefined,
  ) {
    this.list = h('div', { class: 'context-chips', role: 'list', 'aria-label': 'Context for the next message', 'data-testid': 'context-chips' });
    // No live region: what it shows is said by the panel's announcer (an alert here too had it heard twice).
    this.notice = h('div', { class: 'context-notice', 'data-testid': 'context-notice' });
    this.notice.hidden = true;
    this.el = h('div', { class: 'context-bar', 'data-testid': 'context-bar' }, this.list, this.notice);
    this.render();
  }

  setImplicit(chip: ReferenceChip | undefined): void {
    this.implicit = chip;
    this.render();
  }

  /** Adds chips (duplicates of one already there are left out) and says what happened. */
  add(chips: readonly ReferenceChip[]): void {
    const fresh = chips.filter((c) => !this.chips.some((have) => have.key === c.key));
    this.chips = [...this.chips, ...fresh].slice(0, MAX_CHIPS);
    this.clearNotice();
    this.render();
    this.onChange(this.chips);
  }

  /** Puts chips back (a refused message, a reloaded panel). */
  restore(chips: readonly ReferenceChip[]): void {
    this.chips = [];
    this.add(chips.filter(isChip));
  }

  get attached(): ReferenceChip[] {
    return [...this.chips];
  }

  /** The references of the message being sent; the explicit chips go with it, the implicit one comes back. */
  takeForSend(): { refs: AttachedReference[]; chips: ReferenceChip[] } {
    const chips = this.chips;
    const refs: AttachedReference[] = [];
    // With every chip taken, the active editor's would be one too many: the host refused the whole message for it.
    if (this.implicit && chips.length < MAX_CHIPS && this.implicit.key !== this.dismissedKey && !chips.some((c) => c.key === this.implicit?.key)) {
      refs.push({ ref: this.implicit.ref, implicit: true });
    }
    refs.push(...chips.map((c) => ({ ref: c.ref })));
    this.chips = [];
    this.dismissedKey = undefined;
    this.clearNotice();
    this.render();
    this.onChange(this.chips);
    return { refs, chips };
  }

  showNotice(message: string): void {
    this.notice.textContent = message;
    this.notice.hidden = false;
  }

  clearNotice(): void {
    this.notice.hidden = true;
    this.notice.textContent = '';
  }

  private remove(chip: ReferenceChip): void {
    const buttons = [...this.list.querySelectorAll<HTMLElement>('.context-chip-remove')];
    const at = buttons.indexOf(document.activeElement as HTMLElement);
    if (chip.implicit) this.dismissedKey = chip.key;
    else {
      this.chips = this.chips.filter((c) => c.key !== chip.key);
      // The host keeps attached chips for the next snapshot until a message takes them; it must forget this one.
      this.post({ type: 'context/remove', key: chip.key });
    }
    this.render();
    this.onChange(this.chips);
    // Removed by keyboard: the focus moves to the chip that took its place, or the one before, or the composer.
    if (at < 0) return;
    const left = this.list.querySelectorAll<HTMLElement>('.context-chip-remove');
    const next = left[Math.min(at, left.length - 1)];
    if (next) next.focus();
    else this.onFocusLost();
  }

  private render(): void {
    const shown: ReferenceChip[] = [];
    const implicit = this.implicit;
    if (implicit && implicit.key !== this.dismissedKey && !this.chips.some((c) => c.key === implicit.key)) shown.push({ ...implicit, implicit: true });
    shown.push(...this.chips);
    this.list.replaceChildren(...shown.map((c) => this.chipEl(c)));
    this.list.hidden = shown.length === 0;
  }

  private chipEl(chip: ReferenceChip): HTMLElement {
    const label = h(
      'button',
      { class: 'context-chip-label', type: 'button', title: `${chip.detail}${chip.implicit ? '\nFrom the active editor: goes with your next message.' : ''}` },
      chip.label,
    );
    label.addEventListener('click', () => this.post({ type: 'context/open', ref: chip.ref }));
    const remove = h(
      'button',
      { class: 'context-chip-remove', type: 'button', 'aria-label': `Remove ${chip.label}`, title: 'Leave this out', 'data-testid': 'context-chip-remove' },
      '×',
    );
    remove.addEventListener('click', () => this.remove(chip));
    return h(
      'span',
      {
        class: 'context-chip',
        role: 'listitem',
        'data-testid': 'context-chip',
        'data-kind': chip.ref.kind,
        'data-implicit': chip.implicit ? 'true' : undefined,
      },
      kindEl(chip.label, chip.implicit ? `Current ${KIND_LABEL[chip.ref.kind].toLowerCase()}` : KIND_LABEL[chip.ref.kind]),
      label,
      remove,
    );
  }
}

/** The references that went with a message, under it (they survive a reload: the host keeps them in the log). */
export function storedReferencesEl(refs: readonly StoredReference[], post: (message: WebviewMessage) => void): HTMLElement {
  return h(
    'div',
    { class: 'message-references', role: 'list', 'aria-label': 'Attached context', 'data-testid': 'message-references' },
    ...refs.map((r) => {
      const title = [r.path ?? r.label, r.lines ? `lines ${r.lines}` : '', r.note ?? ''].filter(Boolean).join('\n');
      const chip = h(
        'button',
        {
          class: 'context-chip stored',
          type: 'button',
          title,
          'data-testid': 'message-reference',
          'data-kind': r.ref.kind,
          'data-truncated': r.truncated ? 'true' : undefined,
        },
        kindEl(r.label, KIND_LABEL[r.ref.kind]),
        ` ${r.label}${r.truncated ? ' (truncated)' : ''}`,
      );
      chip.addEventListener('click', () => post({ type: 'context/open', ref: r.ref }));
      // The item holds the button: a button given the listitem role is no button to a screen reader.
      return h('span', { class: 'message-reference-item', role: 'listitem' }, chip);
    }),
  );
}

/** The kind in front of a label, unless the label already says it ("Changes", "Problems: a.ts"). */
function kindEl(label: string, kind: string): HTMLElement | null {
  return label.toLowerCase().startsWith(kind.toLowerCase()) ? null : h('span', { class: 'context-chip-kind' }, kind);
}

/** A chip from the webview's own saved state, checked before use (it is only shape-checked: the host checks paths). */
function isChip(value: unknown): value is ReferenceChip {
  const c = value as Partial<ReferenceChip> | null;
  return (
    !!c &&
    typeof c.key === 'string' &&
    typeof c.label === 'string' &&
    typeof c.detail === 'string' &&
    !!c.ref &&
    typeof c.ref.kind === 'string' &&
    c.ref.kind in KIND_LABEL
  );
}

/** URIs from a drop of explorer items or editor tabs (VS Code puts them under several types), or from the OS. */
export function droppedUris(data: DataTransfer): string[] {
  const out: string[] = [];
  const lines = (text: string) =>
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
  const json = (text: string): string[] => {
    try {
      const v: unknown = JSON.parse(text);
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    } catch {
      return [];
    }
  };
  out.push(...lines(data.getData('application/vnd.code.uri-list')));
  out.push(...json(data.getData('resourceurls')));
  out.push(...json(data.getData('codefiles')));
  out.push(...lines(data.getData('text/uri-list')));
  return [...new Set(out)].slice(0, 50);
}

/**
 * Files dropped from the explorer or an editor tab (VS Code hands them to a webview while Shift is held). A drag that
 * began in the panel (a link of a reply) is no file: the host refused its URI with an error. It is left to the
 * browser, which drops a link's text into the composer as it would into any text field.
 */
export function acceptDrops(root: HTMLElement, post: (message: WebviewMessage) => void): void {
  // dragend comes after the drop, so the flag holds for the whole of an inner drag, wherever it ends.
  let inner = false;
  root.addEventListener('dragstart', () => (inner = true));
  root.addEventListener('dragend', () => (inner = false));
  root.addEventListener('dragover', (e) => {
    if (inner || !e.dataTransfer || !DROP_TYPES.some((t) => e.dataTransfer?.types.includes(t))) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    root.classList.add('drop-target');
  });
  root.addEventListener('dragleave', (e) => {
    if (e.target === root) root.classList.remove('drop-target');
  });
  root.addEventListener('drop', (e) => {
    root.classList.remove('drop-target');
    if (inner) return;
    const uris = e.dataTransfer ? droppedUris(e.dataTransfer) : [];
    if (!uris.length) return;
    e.preventDefault();
    post({ type: 'context/drop', uris });
  });
}

export const DROP_TYPES = ['application/vnd.code.uri-list', 'resourceurls', 'codefiles', 'text/uri-list'];
