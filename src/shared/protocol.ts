// The one protocol between the extension host and the chat webview. Both sides import this file.
// Host → webview messages carry a sequence number; a gap makes the webview ask for a snapshot,
// so the host can stay the owner of all data and the webview can be thrown away at any time.
import { z } from 'zod';

export type MessageRole = 'user' | 'assistant' | 'background' | 'system' | 'error';
export type MessageStatus = 'streaming' | 'complete' | 'partial' | 'failed' | 'cancelled' | 'interrupted' | 'pending';

export interface RouteInfo {
  tier: 'fast' | 'standard' | 'premium' | 'fixed';
  model: string;
  reason: 'override' | 'classifier' | 'follow-up' | 'cooldown' | 'background' | 'manual' | 'disabled';
}

export interface UsageInfo {
  inputTokens?: number;
  outputTokens?: number;
}

export interface ChatMessage {
  id: string;
  role: MessageRole;
  content: string;
  status: MessageStatus;
  source?: string;
  route?: RouteInfo;
  usage?: UsageInfo;
  /** For errors: what the user can do about it. */
  action?: { label: string; command: string };
  ts: number;
}

export type WorkerState = 'running' | 'idle' | 'done' | 'failed' | 'timed_out' | 'killed';

export interface WorkerCard {
  name: string;
  workingDir: string;
  state: WorkerState;
  startedAt: number;
  lastLine: string;
}

export interface PermissionPrompt {
  id: string;
  worker: string;
  kind: string;
  /** What the worker wants to do, in words: the command line or the path. */
  detail: string;
}

export interface PanelState {
  busy: boolean;
  model: string;
  routingAuto: boolean;
  /** Set when Baton cannot answer yet (not signed in, no provider): what to do about it. */
  setupHint?: string;
}

export interface Snapshot {
  messages: ChatMessage[];
  workers: WorkerCard[];
  permissions: PermissionPrompt[];
  state: PanelState;
}

/** Host → webview. */
export type HostMessage =
  | { type: 'snapshot'; seq: number; snapshot: Snapshot }
  | { type: 'message/append'; seq: number; message: ChatMessage }
  | { type: 'message/delta'; seq: number; id: string; delta: string }
  | { type: 'message/update'; seq: number; id: string; patch: Partial<Omit<ChatMessage, 'id'>> }
  | { type: 'workers/update'; seq: number; workers: WorkerCard[] }
  | { type: 'permission/request'; seq: number; request: PermissionPrompt }
  | { type: 'permission/resolved'; seq: number; id: string }
  | { type: 'state'; seq: number; state: PanelState }
  | { type: 'composer/focus'; seq: number };

/** Distributes Omit over a union (the built-in Omit collapses it). */
export type WithoutSeq<T> = T extends unknown ? Omit<T, 'seq'> : never;
export type HostMessageBody = WithoutSeq<HostMessage>;

export const permissionDecisionSchema = z.enum(['once', 'worker', 'deny']);
export type PermissionDecision = z.infer<typeof permissionDecisionSchema>;

/** Webview → host. Everything from the webview is untrusted and validated with this schema. */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('snapshot/request') }),
  z.object({ type: z.literal('chat/send'), text: z.string().min(1).max(100_000) }),
  z.object({ type: z.literal('chat/stop') }),
  z.object({ type: z.literal('chat/new') }),
  z.object({ type: z.literal('chat/resend'), id: z.string().min(1) }),
  z.object({ type: z.literal('routing/toggle') }),
  z.object({ type: z.literal('worker/open'), name: z.string().min(1) }),
  z.object({ type: z.literal('permission/answer'), id: z.string().min(1), decision: permissionDecisionSchema }),
  z.object({ type: z.literal('link/open'), href: z.string().min(1).max(4096) }),
  z.object({ type: z.literal('code/insert'), code: z.string().max(1_000_000) }),
  z.object({ type: z.literal('command/run'), command: z.string().regex(/^baton\.[A-Za-z]+$/) }),
]);
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

export function parseWebviewMessage(raw: unknown): { ok: true; message: WebviewMessage } | { ok: false; error: string } {
  const result = webviewMessageSchema.safeParse(raw);
  if (result.success) return { ok: true, message: result.data };
  return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}
