// A client of the scripted model server for its own tests: requests as the runtime sends them, replies read back.
import * as assert from 'node:assert/strict';
import type { ChatMessage, ScriptedModelServer } from './scriptedModelServer';

export interface Chunk {
  object: string;
  choices: Array<{
    index: number;
    delta: { role?: string; content?: string; tool_calls?: Array<{ index: number; id: string; type: string; function: { name: string; arguments: string } }> };
    finish_reason: string | null;
  }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export function userMsg(text: string): ChatMessage {
  return { role: 'user', content: `<current_datetime>2025-01-01T00:00:00Z</current_datetime>\n\n${text}` };
}

export async function chat(
  server: ScriptedModelServer,
  body: Record<string, unknown>,
  opts: { path?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(server.url + (opts.path ?? '/chat/completions'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...opts.headers },
    body: JSON.stringify({ model: 'gpt-4.1', ...body }),
  });
}

/** Parses an SSE body into its data payloads; `[DONE]` is kept as the string. */
export async function readSse(res: Response): Promise<Array<Chunk | '[DONE]'>> {
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      assert.ok(block.startsWith('data: '), `not an SSE data line: ${block}`);
      const data = block.slice('data: '.length);
      return data === '[DONE]' ? '[DONE]' : (JSON.parse(data) as Chunk);
    });
}

export async function replyText(server: ScriptedModelServer, prompt: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await chat(server, { messages: [userMsg(prompt)], ...extra });
  const json = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  return json.choices[0]!.message.content;
}
