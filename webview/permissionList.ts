// Permission prompts from workers, shown inline under the conversation. Focus moves to a new prompt's container
// (not to a button: a keystroke meant for the composer must never answer a prompt), and back to the composer when
// the prompt the user was in goes away. Not while the user is typing, though: the rest of the words and the Enter
// went to the prompt, and the message was lost. The prompt is then announced (chatApp.ts) and a Shift+Tab away.
// What the prompt asks about is shown so that what the user reads is what runs (permissionDetail.ts). Escape in a
// prompt goes back to the composer, as in the log, and answers nothing (the prompt stays, a Shift+Tab away).
import type { PermissionDecision, PermissionPrompt } from '../src/shared/protocol';
import { keptApproval, permissionAsk } from '../src/shared/permissionAsk';
import { visibleText } from '../src/shared/visibleText';
import { onPlainEscape } from './composerFocus';
import { button, h, type ButtonAppearance } from './dom';
import { detailNodes, hiddenWarning, sizeNote, unwatchDetail } from './permissionDetail';
import type { Post } from './messageView';

export class PermissionList {
  readonly el: HTMLElement;
  private prompts = new Map<string, HTMLElement>();

  constructor(
    private readonly post: Post,
    private readonly onFocusLost: () => void,
  ) {
    this.el = h('section', { class: 'permissions', 'aria-label': 'Permission requests' });
    this.el.hidden = true;
    onPlainEscape(this.el, onFocusLost);
  }

  /** Replaces all prompts (a snapshot); prompts that were not shown before take focus like new ones. */
  reset(prompts: PermissionPrompt[]): void {
    const keep = new Set(prompts.map((p) => p.id));
    for (const id of [...this.prompts.keys()]) if (!keep.has(id)) this.resolve(id);
    let first: HTMLElement | undefined;
    for (const prompt of prompts) {
      if (this.prompts.has(prompt.id)) continue;
      const el = this.add(prompt);
      first ??= el;
    }
    if (!typing()) first?.focus();
  }

  request(prompt: PermissionPrompt): void {
    const old = this.prompts.get(prompt.id);
    unwatchDetail(old?.querySelector('.permission-detail') ?? null);
    old?.remove();
    const el = this.add(prompt);
    if (!typing()) el.focus();
  }

  resolve(id: string): void {
    const el = this.prompts.get(id);
    if (!el) return;
    const hadFocus = el.contains(document.activeElement);
    unwatchDetail(el.querySelector('.permission-detail'));
    el.remove();
    this.prompts.delete(id);
    this.el.hidden = this.prompts.size === 0;
    if (hadFocus) {
      const next = this.prompts.values().next().value as HTMLElement | undefined;
      if (next) next.focus();
      else this.onFocusLost();
    }
  }

  private add(prompt: PermissionPrompt): HTMLElement {
    const titleId = `perm-title-${cssId(prompt.id)}`;
    const detailId = `perm-detail-${cssId(prompt.id)}`;
    const warningId = `perm-warning-${cssId(prompt.id)}`;
    const sizeId = `perm-size-${cssId(prompt.id)}`;
    // The worker's name is the model's choice: shown with its hidden characters written out too.
    const worker = visibleText(prompt.worker);
    const kept = keptApproval(prompt, worker);
    type Choice = [PermissionDecision, string, string, ButtonAppearance];
    const keep: Choice[] = kept ? [['worker', 'perm-worker', kept, 'secondary']] : [];
    const buttons: Choice[] = [['once', 'perm-once', kept ? 'Allow once' : 'Allow', 'primary'], ...keep, ['deny', 'perm-deny', 'Deny', 'secondary']];
    const status = h('span', { class: 'permission-status', role: 'status' });
    const row = h('div', { class: 'permission-buttons' });
    for (const [decision, testid, label, appearance] of buttons) {
      const choice = button(appearance, { 'data-testid': testid }, label);
      choice.addEventListener('click', () => {
        if (el.dataset.answered !== undefined) return;
        el.dataset.answered = decision;
        // A disabled button drops the focus to nowhere: the prompt holds it until it goes (then the composer has it).
        if (row.contains(document.activeElement)) el.focus();
        for (const b of row.children) b.setAttribute('disabled', '');
        status.textContent = decision === 'deny' ? 'Denied' : 'Allowed';
        this.post({ type: 'permission/answer', id: prompt.id, decision });
      });
      row.append(choice);
    }
    const detail = h('pre', { class: 'permission-detail', id: detailId });
    detail.append(...detailNodes(prompt.detail));
    const warning = hiddenWarning(prompt.detail, warningId);
    const el = h(
      'div',
      {
        class: 'permission',
        role: 'group',
        tabindex: -1,
        'data-testid': 'permission',
        'data-id': prompt.id,
        'aria-labelledby': titleId,
        'aria-describedby': `${warning ? `${warningId} ` : ''}${sizeId} ${detailId}`,
      },
      h('div', { class: 'permission-title', id: titleId }, h('strong', {}, worker), ` ${permissionAsk(prompt.kind)}`),
      warning,
      sizeNote(prompt.detail, detail, sizeId),
      detail,
      row,
      status,
    );
    this.prompts.set(prompt.id, el);
    this.el.append(el);
    this.el.hidden = false;
    return el;
  }
}

function cssId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The user is typing: a text field has the focus and holds text (an empty composer, just sent from, does not count). */
function typing(): boolean {
  const active = document.activeElement;
  return !!active?.matches('textarea, input:not([type]), input[type="text"], input[type="search"]') && (active as HTMLInputElement).value !== '';
}
