// Shown whenever the host says Baton cannot answer yet (state.setupHint). The hint is free text, so both ways out
// are offered, the one the hint talks about first.
import { button, h, setAppearance, setText } from './dom';
import type { Post } from './messageView';

export class SetupBanner {
  readonly el: HTMLElement;
  private readonly text: HTMLElement;
  private readonly buttons: HTMLElement;
  private signIn: HTMLElement | undefined;
  private providerKey: HTMLElement | undefined;

  constructor(private readonly post: Post) {
    this.text = h('p', { class: 'setup-text' });
    this.buttons = h('div', { class: 'setup-buttons' });
    this.el = h('section', { class: 'setup', role: 'alert', 'data-testid': 'setup-hint', 'aria-label': 'Setup needed' }, this.text, this.buttons);
    this.el.hidden = true;
  }

  set(hint: string | undefined): void {
    this.el.hidden = !hint;
    if (!hint) return;
    setText(this.text, hint);
    // Built on first need: most sessions never show the banner.
    this.signIn ??= this.button('setup-sign-in', 'baton.signIn', 'Sign in with GitHub');
    this.providerKey ??= this.button('setup-provider-key', 'baton.setProviderKey', 'Set a provider key');
    const keyFirst = /provider|api key|\bkey\b|openai|azure|anthropic|ollama/i.test(hint) && !/sign in|signed in|github/i.test(hint);
    const [primary, secondary] = keyFirst ? [this.providerKey, this.signIn] : [this.signIn, this.providerKey];
    setAppearance(primary, 'primary');
    primary.dataset.primary = '';
    setAppearance(secondary, 'secondary');
    delete secondary.dataset.primary;
    if (this.buttons.firstChild !== primary) this.buttons.replaceChildren(primary, secondary);
  }

  private button(testid: string, command: 'baton.signIn' | 'baton.setProviderKey', label: string): HTMLElement {
    const run = button('secondary', { 'data-testid': testid, 'data-command': command }, label);
    run.addEventListener('click', () => this.post({ type: 'command/run', command }));
    return run;
  }
}
