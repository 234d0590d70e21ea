// A user's own MCP server (stdio, newline-delimited JSON-RPC) for the tests: `read_notes` is annotated read-only,
// `write_note` appends to the file NOTES_FILE names (its side effect is what a test checks), `read_file` (read-only, as
// a filesystem server's is) returns any file it is given and appends its path to NOTES_FILE.calls. Plain JS, so the
// runtime starts it with node alone.
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const file = process.env.NOTES_FILE;
const TOOLS = [
  {
    name: 'read_notes',
    description: 'Reads the notes.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'write_note',
    description: 'Appends a note.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  {
    name: 'read_file',
    description: 'Reads a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    annotations: { readOnlyHint: true },
  },
];

const reply = (id, payload) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, ...payload })}\n`);
const text = (t) => ({ result: { content: [{ type: 'text', text: t }] } });

createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined) return; // a notification
  switch (msg.method) {
    case 'initialize':
      return reply(msg.id, {
        result: { protocolVersion: msg.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'notes', version: '0.0.0' } },
      });
    case 'tools/list':
      return reply(msg.id, { result: { tools: TOOLS } });
    case 'tools/call': {
      const name = msg.params?.name;
      if (name === 'read_notes') return reply(msg.id, text(readFileSync(file, 'utf8')));
      if (name === 'read_file') {
        const at = String(msg.params?.arguments?.path ?? '');
        appendFileSync(`${file}.calls`, `${at}\n`);
        return reply(msg.id, text(readFileSync(at, 'utf8')));
      }
      if (name === 'write_note') {
        appendFileSync(file, `${msg.params?.arguments?.text ?? ''}\n`);
        return reply(msg.id, text('written'));
      }
      return reply(msg.id, { error: { code: -32602, message: `no tool ${name}` } });
    }
    case 'ping':
      return reply(msg.id, { result: {} });
    default:
      return reply(msg.id, { error: { code: -32601, message: `no method ${msg.method}` } });
  }
});
