// What the integration tests read from a core's events and the scripted server's requests, once.
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import type { RecordedRequest, ScriptedModelServer } from './scriptedModelServer';

/** The events of one type, typed as that type. */
export function ofType<T extends OrchestratorEvent['type']>(events: OrchestratorEvent[], type: T): Array<Extract<OrchestratorEvent, { type: T }>> {
  return events.filter((e): e is Extract<OrchestratorEvent, { type: T }> => e.type === type);
}

/** How many user messages of the last request to the conversation carry `needle`: a prompt sent twice shows twice. */
export function timesSent(requests: RecordedRequest[], needle: string): number {
  const last = requests.at(-1);
  return last ? last.messages.filter((m) => m.role === 'user' && JSON.stringify(m.content).includes(needle)).length : 0;
}

/** The JSON-RPC methods the runtime called on the scripted GitHub MCP server, in order. */
export function mcpMethods(server: ScriptedModelServer): string[] {
  return server.requests.filter((r) => r.kind === 'mcp').map((r) => String((r.body as { method?: unknown } | undefined)?.method));
}
