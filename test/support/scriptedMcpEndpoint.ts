/**
 * The runtime's built-in GitHub MCP endpoint as the scripted model server answers it (JSON-RPC over streamable HTTP).
 * Separate from the server because it is a different protocol from the model API the rest of the server speaks.
 */
import type * as http from 'node:http';
import { send } from './chatCompletionsWire';
import { isObject, type RecordedRequest } from './recordedRequest';

/** A tool as an MCP server lists it (`tools/list`). */
export interface McpToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * The GitHub MCP server the runtime connects to for every Copilot session (production config
 * leaves it on), as a streamable-HTTP MCP server with no tools unless a test sets some
 * (setMcpTools): the session starts without waiting on a failed connection, and by default the
 * model sees only the session's own tools.
 */
export function answerMcp(rec: RecordedRequest, res: http.ServerResponse, tools: McpToolSpec[]): void {
  if (rec.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const msg = isObject(rec.body) ? rec.body : {};
  const id = msg.id;
  if (id === undefined) {
    res.writeHead(202).end(); // a notification (notifications/initialized ...)
    return;
  }
  const reply = (payload: Record<string, unknown>): void => send(res, 200, { jsonrpc: '2.0', id, ...payload });
  switch (msg.method) {
    case 'initialize':
      return reply({
        result: {
          protocolVersion: (isObject(msg.params) && msg.params.protocolVersion) || '2025-06-18',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'scripted-github-mcp', version: '0.0.0' },
        },
      });
    case 'tools/list':
      return reply({ result: { tools } });
    case 'ping':
      return reply({ result: {} });
    default:
      return reply({ error: { code: -32601, message: `scripted MCP server: no method ${String(msg.method)}` } });
  }
}
