// Control of Baton from the chat, with Max's names: list_models, switch_model, toggle_auto, restart. Each change
// goes through SettingsControl, the same path the palette's commands take (settingsControl.ts says when the
// session is rebuilt).
import { z } from 'zod';
import { ToolFailure, type BatonTool, type ToolJournal, toolMaker } from '../copilot/batonTool';
import type { OrchestratorSettings } from '../orchestrator/orchestrator';
import { NoHostControlError, type SettingsControl } from './settingsControl';

export interface ControlToolOptions {
  control: SettingsControl;
  settings: () => OrchestratorSettings;
  listModels: () => Promise<string[]>;
  currentModel: () => string;
  /** Workers whose task runs now: they live in the runtime a restart stops. */
  runningWorkers: () => string[];
  journal?: ToolJournal;
}

export function createControlTools(opts: ControlToolOptions): BatonTool[] {
  const tool = toolMaker(opts.journal);
  const control = async <T>(fn: (c: SettingsControl) => Promise<T>): Promise<T> => {
    try {
      return await fn(opts.control);
    } catch (err) {
      throw err instanceof NoHostControlError ? new ToolFailure(err.message) : err;
    }
  };

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
        const models = await opts.listModels().catch(() => undefined);
        if (models && !models.includes(a.model_id)) throw new ToolFailure(`Unknown model '${a.model_id}'. Available: ${models.join(', ')}.`);
        const { wasAuto } = await control((c) => c.switchModel(a.model_id));
        return `Switched to ${a.model_id}${wasAuto ? ' (auto routing is now off)' : ''}. From the next message on I answer on it, in a fresh session.`;
      },
      true,
    ),
    tool(
      'toggle_auto',
      'Turn automatic model routing on or off: on, each message gets a tier (fast / standard / premium) from keywords and a quick classifier.',
      z.object({ enabled: z.boolean().describe('true: route automatically; false: always the configured model.') }),
      async (a) => {
        await control((c) => c.setRoutingAuto(a.enabled));
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
        // The idle restart waits for workers; one the model asks for would fail them all without the user knowing.
        const running = opts.runningWorkers();
        if (running.length) {
          throw new ToolFailure(
            `Not restarted: ${running.length === 1 ? 'worker' : 'workers'} ${running.map((n) => `'${n}'`).join(', ')} ${running.length === 1 ? 'is' : 'are'} running, and a restart of the runtime would stop ${running.length === 1 ? 'it' : 'them'}. Wait for ${running.length === 1 ? 'it' : 'them'} to finish, or ask the user whether to stop ${running.length === 1 ? 'it' : 'them'} (kill_session) first.`,
          );
        }
        opts.control.restart('restart requested from the chat');
        return 'Restarting after this reply: the runtime and the session start fresh; the conversation is kept.';
      },
      true,
    ),
  ];
}
