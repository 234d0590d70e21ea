// What an Orchestrator is built with (batonCore.ts gives every conversation's the same, but for its conversation).
import type { AgentSessions, PermissionHandler, ToolGuard } from '../copilot/agentSessions';
import type { BatonTool, ToolJournal } from '../copilot/batonTool';
import type { CallUsage } from '../copilot/callUsage';
import type { UsageInfo } from '../../shared/protocol';
import type { UserCopilotConfig } from '../copilot/userCopilotConfig';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import type { SummarizePolicy } from './conversationCompactor';
import type { RoutingSettings } from './router';
import type { SessionClaims } from './sessionClaims';
import type { SharedConversation } from './sharedConversation';

export interface OrchestratorSettings {
  routing: RoutingSettings;
  turnTimeoutMs: number;
  selfEdit: boolean;
  /** baton.conversation.summarize: compact older turns after `afterTurns` (0: never), keeping `keep` messages. */
  summarize?: SummarizePolicy;
}

export interface OrchestratorOptions {
  /** The conversation this orchestrator runs (its log, session and claim). Default MAIN_CONVERSATION. */
  conversation?: string;
  sessions: AgentSessions;
  store: BatonStore;
  logger: Logger;
  version: string;
  settings: () => OrchestratorSettings;
  /** Baton's tools for the orchestrator (memory, workers); read at every session creation. */
  tools: () => BatonTool[];
  /** The journal the tools share, so a retried turn never repeats a tool's side effect. */
  toolJournal?: ToolJournal;
  memorySummary: () => string;
  workspaceFolders?: () => string[];
  installPath?: string;
  /** Claims on orchestrator sessions, so two windows never write into one session. */
  claims?: SessionClaims;
  /** The conversation as other windows share it (the store as the queue to its owner); absent: this window alone. */
  shared?: SharedConversation;
  /** MCP servers and skill directories from the user's own Copilot configuration. */
  userConfig?: () => UserCopilotConfig;
  /** What the session may do without asking, and what it asks (orchestratorPermissions.ts); unset: Baton's tools only. */
  permissions?: PermissionHandler;
  /** What an MCP tool's call is held to before it runs, reads included (protectedArgs.ts). */
  mcpGuard?: ToolGuard;
  retryDelaysMs?: readonly number[];
  classifierTimeoutMs?: number;
  /** The usage of a request Baton makes for the conversation outside its turns (a compaction's summary). */
  onUsage?: (usage: CallUsage) => void;
  /** What a turn cut off by Baton closing used: no turn event goes out then, and its model calls were made all the same. */
  onInterrupted?: (usage: UsageInfo) => void;
  now?: () => Date;
  /** Questions to the user still open (permissions, apply confirms): a turn that ends with some awaits input. */
  waitingOnUser?: () => number;
}
