// The spec of an orchestrator session (new or resumed): its model, Baton's tools, the user's MCP servers and skills,
// and the system message built from the settings and the shared summaries as they are now.
import type { BatonTool } from '../copilot/batonTool';
import type { SessionSpec } from '../copilot/agentSessions';
import type { OrchestratorOptions } from './orchestratorOptions';
import { buildSystemMessage } from './systemMessage';

export function orchestratorSpec(opts: OrchestratorOptions, model: string, tools: BatonTool[]): Extract<SessionSpec, { role: 'orchestrator' }> {
  const settings = opts.settings();
  const user = opts.userConfig?.();
  return {
    role: 'orchestrator',
    model,
    tools,
    mcpServers: user?.mcpServers,
    skillDirectories: user?.skillDirectories,
    ...(opts.permissions ? { permissions: opts.permissions } : {}),
    ...(opts.mcpGuard ? { mcpGuard: opts.mcpGuard } : {}),
    systemMessage: buildSystemMessage({
      memorySummary: opts.memorySummary(),
      routing: settings.routing,
      selfEdit: settings.selfEdit,
      installPath: opts.installPath,
      workspaceFolders: opts.workspaceFolders?.() ?? [],
      now: opts.now?.() ?? new Date(),
    }),
  };
}
