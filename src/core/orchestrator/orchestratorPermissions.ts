// What a conversation's session may do without asking. There is no approveAll here either:
// - Baton's own tools run (each that acts on the user's files or workers asks on its own: apply, discard, keep);
// - reads run: the built-in GitHub server (its read-only endpoint), and an MCP tool its server marks read-only (the
//   runtime runs those without asking; every MCP call passes the protected-path guard first, protectedArgs.ts);
// - any other MCP tool of the user's own servers asks in the panel first, as a worker's does: Allow once, Allow for
//   this conversation (until the window closes), Deny; a prompt the turn no longer waits for is withdrawn;
// - files and shells are workers' work: refused.
import { randomUUID } from 'node:crypto';
import type { PermissionHandler, PermissionRequest, PermissionRequestResult } from '../copilot/agentSessions';
import { mcpToolLabel } from '../copilot/mcpToolLabel';
import { GITHUB_MCP_SERVER } from '../copilot/sessionConfig';
import type { PermissionDecision } from '../../shared/protocol';
import type { Logger } from '../util/logger';
import type { PermissionBroker } from '../workers/workerPermissions';

/** Who asks, as the panel's prompt names it ("Baton wants to use an MCP tool"). */
export const ORCHESTRATOR_ASKER = 'Baton';

const DETAIL_CHARS = 500;

export interface OrchestratorPermissionOptions {
  broker: PermissionBroker;
  logger: Logger;
  /** The conversation it asks for. */
  conversation: string;
  /** The running turn's signal: the prompt goes when the turn stops waiting for it. */
  signal: () => AbortSignal | undefined;
}

export function orchestratorPermissions(opts: OrchestratorPermissionOptions): PermissionHandler {
  const allowed = new Set<string>();
  // One tool call can raise the same request twice (a worker's read did): the user answers once per call.
  const perCall = new Map<string, Promise<PermissionDecision>>();
  return async (request: PermissionRequest): Promise<PermissionRequestResult> => {
    if (request.kind === 'custom-tool') return { kind: 'approve-once' };
    // A call the MCP guard (protectedArgs.ts) could not check comes as a `hook` request: the user judges it, a read's too.
    if (request.kind !== 'mcp' && request.kind !== 'hook') return { kind: 'reject', feedback: 'Delegate this to a worker.' };
    const tool = request.kind === 'mcp' ? mcpToolLabel(request.serverName, request.toolName) : request.toolName;
    const reads = request.kind === 'mcp' && (request.serverName === GITHUB_MCP_SERVER || request.readOnly);
    if (reads || allowed.has(tool)) return { kind: 'approve-once' };
    const given = request.kind === 'mcp' ? request.args : request.toolArgs;
    const args = given === undefined ? '' : ` ${JSON.stringify(given)}`;
    const detail = `${tool}${args.length > DETAIL_CHARS ? `${args.slice(0, DETAIL_CHARS)}…` : args}`;
    const key = `${request.toolCallId ?? randomUUID()}|${tool}`;
    let pending = perCall.get(key);
    if (!pending) {
      pending = opts.broker
        .ask({ id: randomUUID(), worker: ORCHESTRATOR_ASKER, kind: 'mcp', detail, conversation: opts.conversation, kept: 'conversation' }, opts.signal())
        .catch(() => 'deny' as const);
      perCall.set(key, pending);
      if (perCall.size > 200) perCall.delete(perCall.keys().next().value!);
    }
    const decision = await pending;
    opts.logger.info(`MCP tool ${tool}: ${decision === 'deny' ? 'denied' : 'allowed'} by the user${decision === 'worker' ? ' for this conversation' : ''}`);
    if (decision === 'deny') return { kind: 'reject', feedback: 'The user denied this tool. Do not retry it; continue without it or ask them.' };
    if (decision === 'worker') allowed.add(tool);
    return { kind: 'approve-once', approvedInteractively: true };
  };
}
