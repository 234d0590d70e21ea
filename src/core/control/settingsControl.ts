// Changes to what the orchestrator's session was told (its model, the routing note, a restart), made the same way
// whoever asks: the chat's control tools and the palette's commands both call these, so a switch from the palette
// rebuilds the session exactly as one from the chat does. The setting changes at once (the header follows); the
// session is replaced after the running turn, so the reply being written is never cut off.
import type { OrchestratorSettings } from '../orchestrator/orchestrator';
import type { HostControl } from './hostControl';

export interface SettingsControlOptions {
  host: HostControl | undefined;
  settings: () => OrchestratorSettings;
  /** Runs `fn` once the current turn settles (at once outside a turn). */
  afterTurn: (fn: () => Promise<void> | void) => void;
  /** Drops the orchestrator's session so the next turn builds its instructions again (resumed when nothing else drifted). */
  invalidate: (reason: string) => void;
  /** Drops the orchestrator's session for good: the next turn starts a new one, with the recent turns as recovery context. */
  renew: (reason: string) => void;
  /** Restarts the Copilot runtime (used when the host has no restart of its own). */
  resetRuntime: (reason: string) => Promise<void>;
  /** Re-sends the panel's header state. */
  refreshState: () => void;
}

/** The host cannot change settings (no HostControl): what to tell the caller. */
export class NoHostControlError extends Error {
  constructor() {
    super('Baton cannot change its settings from here; ask the user to use the command palette (Baton: Switch Model / Toggle Auto Routing).');
    this.name = 'NoHostControlError';
  }
}

export class SettingsControl {
  constructor(private readonly opts: SettingsControlOptions) {}

  private host(): HostControl {
    if (!this.opts.host) throw new NoHostControlError();
    return this.opts.host;
  }

  /** Sets the orchestrator's model; auto routing goes off (the user chose a model). The next turn runs on it, in a fresh session. */
  async switchModel(model: string): Promise<{ wasAuto: boolean }> {
    const host = this.host();
    const wasAuto = this.opts.settings().routing.auto;
    await host.setModel(model);
    if (wasAuto) await host.setRoutingAuto(false);
    this.opts.refreshState();
    this.opts.afterTurn(() => this.opts.invalidate(`the model was switched to ${model}`));
    return { wasAuto };
  }

  /** Turns auto routing on or off; the routing note in the session's instructions changes with it. */
  async setRoutingAuto(on: boolean): Promise<void> {
    await this.host().setRoutingAuto(on);
    this.opts.refreshState();
    this.opts.afterTurn(() => this.opts.invalidate(`auto routing turned ${on ? 'on' : 'off'}`));
  }

  /**
   * The model or routing settings changed outside Baton (settings.json, the Settings editor, Settings Sync): the
   * session is told after the running turn, as after a switch here. It went on saying "Automatic routing is OFF"
   * while every message was routed.
   */
  settingsChanged(what: string): void {
    this.opts.refreshState();
    this.opts.afterTurn(() => this.opts.invalidate(`${what} changed in the settings`));
  }

  /** After the running turn: the runtime restarts and the next turn starts a new session (never the saved one resumed). */
  restart(reason: string): void {
    this.opts.afterTurn(async () => {
      if (this.opts.host?.restart) await this.opts.host.restart();
      else await this.opts.resetRuntime(reason);
      this.opts.renew(reason);
    });
  }
}
