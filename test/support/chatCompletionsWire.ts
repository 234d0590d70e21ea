/**
 * The wire formats the scripted model server answers in: the model lists of the Copilot and OpenAI APIs, JSON replies,
 * how a scripted reply is cut into stream deltas and given a token usage, and a chat answer as a whole completion or as
 * server-sent chunks. Separate from the server's routing.
 */
import type * as http from 'node:http';
import type { Usage } from './scriptRule';

export interface ModelSpec {
  id: string;
  name?: string;
  family?: string;
  vendor?: string;
  maxContextTokens?: number;
  maxPromptTokens?: number;
  maxOutputTokens?: number;
  supportsTools?: boolean;
  supportsVision?: boolean;
  /** Premium requests one user request to this model costs (the Copilot API's billing multiplier); absent: none. */
  multiplier?: number;
}

export const DEFAULT_MODELS: readonly string[] = ['claude-sonnet-4.5', 'gpt-4.1', 'claude-opus-4.6', 'claude-sonnet-4.6'];

export function copilotModelList(models: readonly ModelSpec[]): unknown {
  return {
    data: models.map((m) => ({
      id: m.id,
      name: m.name ?? m.id,
      object: 'model',
      vendor: m.vendor ?? (m.id.startsWith('claude') ? 'Anthropic' : 'OpenAI'),
      version: m.id,
      model_picker_enabled: true,
      preview: false,
      capabilities: {
        type: 'chat',
        family: m.family ?? m.id,
        object: 'model_capabilities',
        tokenizer: 'o200k_base',
        supports: {
          tool_calls: m.supportsTools ?? true,
          parallel_tool_calls: true,
          streaming: true,
          vision: m.supportsVision ?? false,
        },
        limits: {
          max_context_window_tokens: m.maxContextTokens ?? 128000,
          max_prompt_tokens: m.maxPromptTokens ?? 100000,
          max_output_tokens: m.maxOutputTokens ?? 8000,
        },
      },
      policy: { state: 'enabled', terms: '' },
      ...(m.multiplier !== undefined ? { billing: { is_premium: m.multiplier > 0, multiplier: m.multiplier } } : {}),
    })),
    object: 'list',
  };
}

export function openAiModelList(models: readonly ModelSpec[]): unknown {
  return {
    object: 'list',
    data: models.map((m) => ({ id: m.id, object: 'model', created: 0, owned_by: 'scripted' })),
  };
}

export function splitText(text: string, chunks: number | undefined): string[] {
  if (text.length === 0) return [];
  const n = Math.max(1, Math.min(chunks ?? defaultChunkCount(text), text.length));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function defaultChunkCount(text: string): number {
  // Several deltas by default so every streamed reply exercises delta handling, not just the final message.
  return Math.min(4, text.length);
}

export function estimateUsage(requestBody: string, text: string, toolCalls: Array<{ function: { arguments: string } }>): Usage {
  const out = text.length + toolCalls.reduce((n, c) => n + c.function.arguments.length, 0);
  return { prompt_tokens: Math.max(1, Math.ceil(requestBody.length / 4)), completion_tokens: Math.max(1, Math.ceil(out / 4)) };
}

export function withTotal(u: Usage): Usage & { total_tokens: number } {
  return { ...u, total_tokens: u.prompt_tokens + u.completion_tokens };
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** One scripted chat answer, as both encodings (a whole completion, server-sent chunks) need it. */
export interface ChatAnswer {
  id: string;
  model: string;
  text: string;
  toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  usage: Usage;
}

export function finishReason(answer: ChatAnswer): 'tool_calls' | 'stop' {
  return answer.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

export function completionBody(answer: ChatAnswer): Record<string, unknown> {
  const { id, model, text, toolCalls } = answer;
  return {
    id,
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text.length > 0 ? text : null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: finishReason(answer),
      },
    ],
    usage: withTotal(answer.usage),
  };
}

export function sseChunk(answer: ChatAnswer, delta: Record<string, unknown>, finish: string | null, extra?: Record<string, unknown>): string {
  const body = {
    id: answer.id,
    object: 'chat.completion.chunk',
    created: nowSeconds(),
    model: answer.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}
