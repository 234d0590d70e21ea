// Shown whenever the host says Baton cannot answer yet (state.setupHint). The hint is free text, so both ways out
// are offered, the one the hint talks about first.
import { h, setText } from './dom';
import type { Post } from './messageView';

export class SetupBanner {
  readonly el: HTMLElement;
  private readonly text: HTMLElement;
  private readonly signIn: HTMLElement;
  private readonly providerKey: HTMLElement;
  private readonly buttons: HTMLElement;

  constructor(post: Post) {
    this.text = h('p', { class: 'setup-text' });
    this.signIn = h('vscode-button', { 'data-testid': 'setup-sign-in', 'data-command': 'baton.signIn' }, 'Sign in with GitHub');
    this.providerKey = h('vscode-button', { 'data-testid': 'setup-provider-key', 'data-command': 'baton.setProviderKey' }, 'Set a provider key');
    this.signIn.addEventListener('click', () => post({ type: 'command/run', command: 'baton.signIn' }));
    this.providerKey.addEventListener('click', () => post({ type: 'command/run', command: 'baton.setProviderKey' }));
    this.buttons = h('div', { class: 'setup-buttons' });
    this.el = h('section', { class: 'setup', role: 'alert', 'data-testid': 'setup-hint', 'aria-label': 'Setup needed' }, this.text, this.buttons);
    this.el.hidden = true;
  }

  set(hint: string | undefined): void {
    this.el.hidden = !hint;
    if (!hint) return;
    setText(this.text, hint);
    const keyFirst = /provider|api key|\bkey\b|openai|azure|anthropic|ollama/i.test(hint) && !/sign in|signed in|github/i.test(hint);
    const [primary, secondary] = keyFirst ? [this.providerKey, this.signIn] : [this.signIn, this.providerKey];
    primary.setAttribute('appearance', 'primary');
    primary.dataset.primary = '';
    secondary.setAttribute('appearance', 'secondary');
    delete secondary.dataset.primary;
    if (this.buttons.firstChild !== primary) this.buttons.replaceChildren(primary, secondary);
  }
}
