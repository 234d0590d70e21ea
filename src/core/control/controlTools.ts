// Control of Baton from the chat, with Max's names: list_models, switch_model, toggle_auto, restart. A setting is
// changed through the host (HostControl); the panel header follows at once (refreshState), and whatever changes
// what the orchestrator's session knows (its model, the routing note in its instructions, a restart) is applied
// after the running turn, so the reply being written is never cut off, and the next turn starts a fresh session.
import { z } from 'zod';
import { ToolFailure, type BatonTool, type ToolJournal, toolMaker } from '../copilot/batonTool';
import type { OrchestratorSettings } from '../orchestrator/orchestrator';
import type { HostControl } from './hostControl';

export interface ControlToolOptions {
  control: HostControl | undefined;
  settings: () => OrchestratorSettings;
  listModels: () => Promise<string[]>;
  currentModel: () => string;
  /** Runs `fn` once the current turn settles (at once outside a turn). */
  afterTurn: (fn: () => Promise<void> | void) => void;
  /** Drops the orchestrator's session so the next turn builds a fresh one (system message included). */
  invalidate: (reason: string) => void;
  /** Restarts the Copilot runtime (used when the host has no restart of its own). */
  resetRuntime: (reason: string) => Promise<void>;
  /** Re-sends the panel's header state. */
  refreshState: () => void;
  journal?: ToolJournal;
}

export function createControlTools(opts: ControlToolOptions): BatonTool[] {
  const host = (): HostControl => {
    if (!opts.control)
      throw new ToolFailure('Baton cannot change its settings from here; ask the user to use the command palette (Baton: Switch Model / Toggle Auto Routing).');
    return opts.control;
  };
  const tool = toolMaker(opts.journal);

  return [
    tool('list_models', 'List the models Baton can use, which one answers now, and the model of each auto-routing tier.', z.object({}), async () => {
      const routing = opts.settings().routing;
      const models = await opts.listModels().catch((err: unknown) => {
        throw new ToolFailure(`Could not list models: ${err instanceof Error ? err.message : String(err)}`);
      });
      const current = opts.currentModel();
      return [
        `Models (${models.length}):`,
        ...models.map((m) => `- ${m}${m === current ? ' (answering now)' : ''}${m === routing.model ? ' (configured)' : ''}`),
        '',
        `Auto routing is ${routing.auto ? 'ON' : 'OFF'}. Tiers: fast ${routing.tiers.fast}, standard ${routing.tiers.standard}, premium ${routing.tiers.premium}.`,
      ].join('\n');
    }),
    tool(
      'switch_model',
      'Switch the orchestrator to another model (see list_models). Takes effect from the next message, in a fresh session. Turns auto routing off, since the user chose a model.',
      z.object({ model_id: z.string().trim().min(1).max(100).describe('A model id from list_models, e.g. "claude-sonnet-4.5".') }),
      async (a) => {
        const control = host();
        const models = await opts.listModels().catch(() => undefined);
        if (models && !models.includes(a.model_id)) throw new ToolFailure(`Unknown model '${a.model_id}'. Available: ${models.join(', ')}.`);
        const wasAuto = opts.settings().routing.auto;
        await control.setModel(a.model_id);
        if (wasAuto) await control.setRoutingAuto(false);
        opts.refreshState();
        opts.afterTurn(() => opts.invalidate(`the model was switched to ${a.model_id}`));
        return `Switched to ${a.model_id}${wasAuto ? ' (auto routing is now off)' : ''}. From the next message on I answer on it, in a fresh session.`;
      },
      true,
    ),
    tool(
      'toggle_auto',
      'Turn automatic model routing on or off: on, each message gets a tier (fast / standard / premium) from keywords and a quick classifier.',
      z.object({ enabled: z.boolean().describe('true: route automatically; false: always the configured model.') }),
      async (a) => {
        await host().setRoutingAuto(a.enabled);
        opts.refreshState();
        // The routing note in the system message changes with it.
        opts.afterTurn(() => opts.invalidate(`auto routing turned ${a.enabled ? 'on' : 'off'}`));
        const t = opts.settings().routing.tiers;
        return a.enabled
          ? `Auto routing is on: fast ${t.fast}, standard ${t.standard}, premium ${t.premium}.`
          : `Auto routing is off: every message uses ${opts.settings().routing.model}.`;
      },
      true,
    ),
    tool(
      'restart',
      'Restart Baton\u2019s Copilot runtime and start a fresh orchestrator session (the conversation log is kept). Use it when things are stuck.',
      z.object({}),
      async () => {
        opts.afterTurn(async () => {
          if (opts.control?.restart) await opts.control.restart();
          else await opts.resetRuntime('restart requested from the chat');
          opts.invalidate('restart requested from the chat');
        });
        return 'Restarting after this reply: the runtime and the session start fresh; the conversation is kept.';
      },
      true,
    ),
  ];
}
