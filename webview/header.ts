// The panel header: the current model (a button that switches it), the auto-routing toggle and New chat. It fits a 300 px side bar: the model
// name takes the room that is left and is cut with an ellipsis only below that, its full name always in the tooltip;
// the toggle says "Auto" and New chat is an icon button, both explained by their tooltips. While the Copilot runtime
// restarts (Baton was idle and it had grown) a status beside the model says so instead of a bare "busy".
import type { PanelState, WebviewMessage } from '../src/shared/protocol';
import { button, checkbox, h, setText } from './dom';

export class Header {
  readonly el: HTMLElement;
  private readonly model: HTMLElement;
  private readonly status: HTMLElement;
  private readonly routing: HTMLInputElement;
  private routingAuto = true;

  constructor(post: (message: WebviewMessage) => void) {
    this.model = h('span', { class: 'model', 'data-testid': 'model', title: 'Current model' });
    const { el: routingLabel, input: routing } = checkbox(
      {
        id: 'routing-auto',
        class: 'routing-toggle',
        'data-testid': 'routing-toggle',
        checked: true,
        title: 'Auto routing: pick a model per request (fast, standard or premium)',
      },
      'Auto',
    );
    this.routing = routing;
    // Only a change that differs from the host's state is the user's; the host answers with a `state` message that
    // settles the box.
    this.routing.addEventListener('change', () => {
      if (this.routing.checked !== this.routingAuto) post({ type: 'routing/toggle' });
    });
    const newChat = button(
      'icon',
      { class: 'new-chat', 'data-testid': 'new-chat', title: 'New chat: start a new conversation', 'aria-label': 'New chat' },
      '+',
    );
    newChat.addEventListener('click', () => post({ type: 'chat/new' }));
    // The model is also the way to change it, as in VS Code's own chat: a click opens Baton: Switch Model's quick pick.
    const switchModel = h(
      'button',
      { type: 'button', class: 'vscode-action-button model-label model-switch', 'data-testid': 'model-switch', 'aria-description': 'Switch the model' },
      h('span', { class: 'sr-only' }, 'Model '),
      this.model,
      h('span', { class: 'model-chevron', 'aria-hidden': 'true' }, '\u25BE'),
    );
    switchModel.addEventListener('click', () => post({ type: 'command/run', command: 'baton.switchModel' }));
    // A live region that exists from the start, so a screen reader reads the restart when it begins.
    this.status = h('span', { class: 'header-status', role: 'status', 'data-testid': 'header-status' });
    this.el = h('header', { class: 'header' }, switchModel, this.status, h('span', { class: 'header-spacer' }), routingLabel, newChat);
  }

  setState(state: PanelState): void {
    setText(this.model, state.model || '—');
    this.model.title = state.model
      ? `Model: ${state.model}${state.usageToday ? `\n${sentence(state.usageToday)}` : ''}\nClick to switch the model`
      : 'No model yet: click to choose one';
    setText(this.status, state.runtimeRestarting ? 'Restarting Copilot\u2026' : '');
    this.status.title = state.runtimeRestarting
      ? 'Baton is restarting the Copilot runtime to give back memory; a message you send now is answered right after'
      : '';
    this.routingAuto = state.routingAuto;
    if (this.routing.checked !== state.routingAuto) this.routing.checked = state.routingAuto;
  }
}

/** "no usage today" as a line of its own: "No usage today" (before, the tooltip read "Usage no usage today"). */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
