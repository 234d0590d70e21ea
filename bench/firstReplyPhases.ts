// Where a reply's time goes between Enter and its first token, phase by phase: Baton's part (up to the turn being
// routed, its last step before the SDK's send), then the runtime's, read from its own session events (their
// timestamps are the runtime's clock, which is this machine's), then the scripted model server's arrival time for the
// model request and the panel's first delta. A resumed session's first turn writes no timing spans (a new session's
// does, runtimeFirstTurn.ts); its events are what is left to read, and a warm turn on the same session writes the same
// ones, so the two can be compared phase by phase.
import type { SessionEvent } from '@github/copilot-sdk';
import type { AgentSession } from '../src/core/copilot/agentSessions';
import type { CoreFixture } from '../test/support/orchestratorFixture';
import type { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { median, type BenchFigure } from './figure';

export interface ReplyPhases {
  /** Enter → Baton's turn routed (the queue, the session ensured, the prompt built). */
  baton: number;
  /** Routed → the runtime has the message (its `pending_messages.modified`). */
  toRuntime: number;
  /** → its MCP servers reconciled for the turn (`session.mcp_servers_loaded`). */
  mcp: number;
  /** → the turn's tool list built (`session.tools_updated`). */
  tools: number;
  /** → the turn started (`assistant.turn_start`: the user message and system message written). */
  turnStart: number;
  /** → the model request reached the scripted server. */
  toModel: number;
  /** → the first token in the panel (the server's first chunk, the runtime's delta, Baton's post). */
  toToken: number;
  total: number;
}

export const PHASES: Array<[keyof ReplyPhases, string]> = [
  ['baton', "Enter → Baton's turn routed"],
  ['toRuntime', 'routed → the runtime has the message'],
  ['mcp', '→ its MCP servers reconciled'],
  ['tools', "→ the turn's tool list built"],
  ['turnStart', '→ the turn started'],
  ['toModel', '→ the model request at the server'],
  ['toToken', '→ the first token in the panel'],
];

const wall = (): number => performance.timeOrigin + performance.now();

/** One message from the panel, timed phase by phase; `live` gives the orchestrator's session once the turn is routed. */
export async function phasedReply(core: CoreFixture, server: ScriptedModelServer, live: () => AgentSession | undefined, text: string): Promise<ReplyPhases> {
  const seen = new Map<string, number>();
  let routed: number | undefined;
  let offSession: (() => void) | undefined;
  const offCore = core.conversations.onEvent((e) => {
    if (e.type !== 'turn.routed' || routed !== undefined) return;
    routed = wall();
    // Subscribed at routing (the session is open by then, the send not made yet): what opening the panel set going
    // before Enter is not this message's.
    offSession = live()?.onEvent((ev: SessionEvent) => {
      if (!seen.has(ev.type)) seen.set(ev.type, Date.parse(ev.timestamp));
    });
  });
  const requestsBefore = server.requests.length;
  const first = new Promise<number>((resolve) => {
    const off = core.chat.onDidPost((m) => {
      if (m.type !== 'message/delta') return;
      off();
      resolve(wall());
    });
  });
  const enter = wall();
  core.chat.receive({ type: 'chat/send', text });
  const token = await first;
  offCore();
  while (core.orchestrator.busy) await new Promise((r) => setTimeout(r, 10));
  offSession?.();
  const model = server.requests.slice(requestsBefore).find((r) => r.kind === 'chat')?.at;
  const marks = [
    routed,
    seen.get('pending_messages.modified'),
    seen.get('session.mcp_servers_loaded'),
    seen.get('session.tools_updated'),
    seen.get('assistant.turn_start'),
    model,
  ];
  if (marks.some((m) => m === undefined)) throw new Error(`a phase of the reply was not seen: ${JSON.stringify(marks)}`);
  const [r, pending, mcp, tools, turnStart, request] = marks as number[];
  // The runtime's timestamps have millisecond resolution: a phase can read a fraction of a ms below zero.
  const gap = (a: number, b: number): number => Math.max(0, b - a);
  return {
    baton: gap(enter, r!),
    toRuntime: gap(r!, pending!),
    mcp: gap(pending!, mcp!),
    tools: gap(mcp!, tools!),
    turnStart: gap(tools!, turnStart!),
    toModel: gap(turnStart!, request!),
    toToken: gap(request!, token),
    total: token - enter,
  };
}

/** Median of each phase, first reply against warm reply, as bench figures. */
export function phaseFigures(label: string, first: ReplyPhases[], warm: ReplyPhases[]): BenchFigure[] {
  return PHASES.map(([key, name]) => ({
    name: `${label}: ${name}, first reply (median; warm reply ${median(warm.map((p) => p[key])).toFixed(1)} ms)`,
    value: median(first.map((p) => p[key])),
    unit: 'ms',
  }));
}
