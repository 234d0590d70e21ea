// Baton's tools for one conversation's session, put together from each part's own tool set (memory, workers, change
// sets, squads, the wiki, skills, settings): a worker or squad started from it reports back into that conversation.
// The composition root (batonCore.ts) passes the parts; nothing here builds one.
import { randomUUID } from 'node:crypto';
import { createChangeTools } from './changes/changeTools';
import { createControlTools } from './control/controlTools';
import type { SettingsControl } from './control/settingsControl';
import type { BatonTool, ToolJournal } from './copilot/batonTool';
import { createMemoryTools } from './memory/memoryTools';
import type { Origin } from './orchestrator/events';
import type { Orchestrator, OrchestratorSettings } from './orchestrator/orchestrator';
import { ORCHESTRATOR_ASKER } from './orchestrator/orchestratorPermissions';
import type { SkillLibrary } from './skills/skillLibrary';
import { createSkillTools } from './skills/skillTools';
import type { SquadService } from './squads/squadService';
import { createSquadTools } from './squads/squadTools';
import type { BatonStore } from './store/types';
import type { Wiki } from './wiki/wiki';
import { createWikiTools } from './wiki/wikiTools';
import type { PermissionBroker } from './workers/workerPermissions';
import { replyTo, type ReplyChannel, type ReplyTo, type WorkerPool } from './workers/workerPool';
import { createWorkerTools } from './workers/workerTools';

/** The parts the tools act on, shared by every conversation. */
export interface OrchestratorToolParts {
  store: BatonStore;
  journal: ToolJournal;
  pool: WorkerPool;
  squads: SquadService;
  wiki: Wiki;
  skills: SkillLibrary;
  control: SettingsControl;
  /** Asks the user in the panel (landing or dropping a worker's changes is theirs to decide). */
  broker: PermissionBroker;
  settings: () => OrchestratorSettings;
  listModels: () => Promise<string[]>;
  defaultWorkerFolder?: () => string | undefined;
  dirtyBuffers?: () => readonly string[];
  skillIndexUrl?: () => string | undefined;
  /** A skill was installed or removed: the next session must load the skills again. */
  skillsChanged: () => void;
}

export function createOrchestratorTools(orch: Orchestrator, parts: OrchestratorToolParts): BatonTool[] {
  const { store, journal, pool } = parts;
  const reportTo = (): ReplyTo => replyAddress(orch.currentOrigin, orch.conversation);
  // Asks in the panel, withdrawn when the turn that asked stops (a worker's name, or Baton for its own acts).
  const ask = async (worker: string, kind: string, detail: string) =>
    (await parts.broker.ask({ id: randomUUID(), worker, kind, detail, conversation: orch.conversation }, orch.turnSignal)) !== 'deny';
  return [
    ...createMemoryTools(store, journal),
    ...createWorkerTools(pool, { replyTo: reportTo, journal, defaultWorkingDir: parts.defaultWorkerFolder, signal: () => orch.turnSignal }),
    ...(pool.changes
      ? createChangeTools(pool.changes, {
          journal,
          confirm: ask,
          dirtyBuffers: () => parts.dirtyBuffers?.() ?? [],
          summaryOf: (worker) => pool.summaryOf(worker),
        })
      : []),
    ...createSquadTools(parts.squads, { replyTo: reportTo, journal, signal: () => orch.turnSignal }),
    ...createWikiTools(parts.wiki, journal),
    ...createSkillTools(parts.skills, {
      journal,
      indexUrl: () => parts.skillIndexUrl?.(),
      changed: parts.skillsChanged,
      confirm: (kind, detail) => ask(ORCHESTRATOR_ASKER, kind, detail),
    }),
    ...createControlTools({
      control: parts.control,
      settings: parts.settings,
      listModels: parts.listModels,
      currentModel: () => orch.currentModel,
      runningWorkers: () => pool.listActive().flatMap((w) => (w.state === 'running' ? [w.name] : [])),
      journal,
    }),
  ];
}

/** Where a worker started during a turn of `conversation` reports back: the channel that asked, in that conversation. */
function replyAddress(origin: Origin | undefined, conversation: string): ReplyTo {
  const channel: ReplyChannel = !origin ? 'panel' : origin.channel === 'background' ? (origin.replyTo ?? 'panel') : origin.channel;
  return replyTo(channel, conversation);
}
