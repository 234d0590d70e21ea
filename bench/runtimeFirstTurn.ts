// The runtime's own account of a session's first turn: its OpenTelemetry spans, written by its file exporter (the
// variables the SDK's `telemetry` client option sets, given here through the runtime's environment setting). The
// runtime times every phase of a new session's first turn (`session.first_turn`, with `session.timing.*` spans; a new
// session opened ahead writes them too, a resumed one does not); later turns skip that preparation, which is what
// makes the first reply slower than a warm one. Whatever was warmed up before, the first turn builds the session's
// tool descriptors again (`tool_initialization_attempt`; bench/firstTurnTools.ts, docs/performance.md ³).
import { readFile } from 'node:fs/promises';

/** The environment that makes the runtime write its spans to `file` (JSON lines). */
export function runtimeTracingEnvironment(file: string): Record<string, string> {
  return { COPILOT_OTEL_ENABLED: 'true', COPILOT_OTEL_EXPORTER_TYPE: 'file', COPILOT_OTEL_FILE_EXPORTER_PATH: file };
}

export interface FirstTurnTiming {
  /** Everything the runtime did before the turn could be set up for the model (its turn_preparation phase). */
  preparationMs: number;
  /** Within it: authenticating to and connecting the built-in GitHub MCP server. */
  githubMcpMs: number;
  /** Within it: building the session's tool list (descriptors, MCP catalog, validation). */
  toolsMs: number;
  /** Within that: the tool descriptors alone. */
  descriptorsMs: number;
}

interface Span {
  type?: string;
  name?: string;
  traceId?: string;
  attributes?: Record<string, unknown>;
}

const TIMING = 'github.copilot.session.timing.';

/** The first turn of session `sessionId` as the runtime timed it; undefined when the file holds none. */
export async function firstTurnTiming(file: string, sessionId: string): Promise<FirstTurnTiming | undefined> {
  const spans: Span[] = (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Span)
    .filter((s) => s.type === 'span');
  const turn = spans.find((s) => s.name === 'session.first_turn' && s.attributes?.['gen_ai.conversation.id'] === sessionId);
  if (!turn?.attributes) return undefined;
  const number = (v: unknown): number => (typeof v === 'number' ? v : 0);
  const phase = (name: string): number =>
    spans
      .filter((s) => s.traceId === turn.traceId && s.name === `session.timing.${name}`)
      .reduce((sum, s) => sum + number(s.attributes?.[`${TIMING}duration_ms`]), 0);
  return {
    preparationMs: number(turn.attributes[`${TIMING}turnPreparationDurationMs`]),
    githubMcpMs: phase('github_mcp_authentication'),
    toolsMs: number(turn.attributes[`${TIMING}toolInitializationAttemptDurationMs`]) + number(turn.attributes[`${TIMING}mcpCatalogDurationMs`]),
    descriptorsMs: phase('tool_descriptors'),
  };
}
