// The public API another extension gets from activate() (typed in api/baton.d.ts): version 1 is what activate()
// resolves to, unchanged; version 2 (Warlock's orchestrator surface) comes from getApi(2). Both are usable at once:
// calls wait for Baton's core, which is built just after activation, and subscriptions made before that are attached
// when it is ready. Everything they ask is tagged "[via api]".
import type { BatonApi, BatonApiV2, BatonDisposable, BatonEvent, BatonEventV2 } from '../../../api/baton';
import { Emitter } from '../util/emitter';
import { conversationIdInput, parseInput } from './apiInputs';
import type { BatonAccess } from './batonAccess';
import { checkAsToolOptions } from './batonAgentTool';
import { BatonApiError, toBatonApiError } from './batonApiError';
import { V1_EVENTS } from './lifecycleEvents';

/** A version 2 event as version 1 shows it; undefined for the types version 1 does not have. */
function toV1(e: BatonEventV2): BatonEvent | undefined {
  if (e.type === 'turn.awaiting-input') return { type: 'turn.completed', turnId: e.turnId, origin: e.origin, text: e.text, status: 'complete', model: e.model };
  if (!V1_EVENTS.has(e.type)) return undefined;
  // Version 1's shapes exactly: the fields version 2 added are left out.
  const { conversation: _conversation, ...rest } = e as BatonEventV2 & { source?: unknown; raw?: unknown; origin?: { conversation?: string } };
  if (rest.origin?.conversation !== undefined) {
    const { conversation: _c, ...origin } = rest.origin;
    (rest as { origin: object }).origin = origin;
  }
  if (rest.type === 'turn.routed') {
    const { source: _source, raw: _raw, ...routed } = rest;
    return routed as BatonEvent;
  }
  return rest as BatonEvent;
}

/** on()'s arguments, checked when subscribing: a bad one would otherwise subscribe to nothing, silently. */
function checkOn(type: unknown, handler: unknown): void {
  if (typeof type !== 'string' || !type) throw new BatonApiError('invalid-input', 'Invalid input for on: type: must be an event type or "*".');
  if (typeof handler !== 'function') throw new BatonApiError('invalid-input', 'Invalid input for on: handler: must be a function.');
}

function v1Handler(handler: ((event: BatonEvent) => void) | undefined): ((event: BatonEventV2) => void) | undefined {
  return (
    handler &&
    ((e) => {
      const v1 = toV1(e);
      if (v1) handler(v1);
    })
  );
}

export function createBatonApi(access: () => Promise<BatonAccess>): BatonApi & { dispose(): void } {
  const events = new Emitter<BatonEventV2>();
  let detach: (() => void) | undefined;
  let disposed = false;
  // Attached on first use, so activation does not build the core for an API nobody calls.
  let attaching: Promise<BatonAccess> | undefined;
  // A core that failed to build is Baton's failure, not the caller's: every call rejects with it as kind 'fatal'.
  const ready = (): Promise<BatonAccess> =>
    (attaching ??= access().then(
      (a) => {
        if (!disposed) detach = a.events.onEvent((e) => events.fire(e));
        return a;
      },
      (err: unknown) => {
        throw toBatonApiError(err);
      },
    ));

  /** `select` gives what the handler gets of an event (undefined: nothing); `type` is matched on that. */
  const subscribe = <E extends { type: string }>(type: string, handler: (event: E) => void, select: (e: BatonEventV2) => E | undefined): BatonDisposable => {
    checkOn(type, handler);
    const off = events.event((e) => {
      const shown = select(e);
      if (shown && (type === '*' || shown.type === type)) handler(shown);
    });
    // Nobody may miss events because the core was not built yet when they subscribed.
    void ready().catch(() => undefined);
    return { dispose: () => void off() };
  };

  const v2: BatonApiV2 = {
    apiVersion: 2,
    ask: async (text, options) => (await ready()).ask(text, 'api', options ?? {}),
    delegate: async (task, options) => (await ready()).delegate(task, 'api', options),
    workers: async () => (await ready()).workers(),
    recall: async (query) => (await ready()).recall(query),
    conversations: async () => (await ready()).conversations(),
    checkpoints: async (conversation, limit) => (await ready()).checkpoints(conversation, limit),
    on: ((type: string, handler: (event: BatonEventV2) => void) => subscribe(type, handler, (e) => e)) as BatonApiV2['on'],
    asTool: (options) => lazyTool(ready, options),
    conversation: (id) => ({
      id,
      on: ((type: string, handler: (event: BatonEventV2) => void): BatonDisposable => {
        const checked = parseInput('conversation', conversationIdInput, id);
        if (!checked.ok) throw new BatonApiError('invalid-input', checked.error);
        checkOn(type, handler);
        let off: (() => void) | undefined;
        let gone = false;
        // A core that failed to build: its calls reject with why; a subscription has nobody to reject to.
        ready().then(
          (a) => {
            if (!gone) off = a.events.onConversation(id, (e) => (type === '*' || e.type === type) && handler(e));
          },
          () => undefined,
        );
        return {
          dispose: () => {
            gone = true;
            off?.();
          },
        };
      }) as ReturnType<BatonApiV2['conversation']>['on'],
      ask: async (text, options) => (await ready()).ask(text, 'api', { ...options, conversation: id }),
      delete: async () => (await ready()).deleteConversation(id),
      checkpoints: async (limit) => (await ready()).checkpoints(id, limit),
      compact: async (keep) => (await ready()).compact(id, keep),
      summarize: async (policy) => (await ready()).summarize(id, policy),
      messages: async (limit) => (await ready()).messages(id, limit),
      rewind: async (messageId) => (await ready()).rewind(id, messageId),
    }),
  };

  const v1: BatonApi & { dispose(): void } = {
    apiVersion: 1,
    getApi: ((version: number) => {
      if (version === 1) return v1;
      if (version === 2) return v2;
      throw new RangeError(`Baton has API versions 1 and 2, not ${String(version)}.`);
    }) as BatonApi['getApi'],
    ask: async (text, options) => {
      const reply = await (await ready()).ask(text, 'api', { signal: options?.signal, on: v1Handler(options?.on) });
      return {
        turnId: reply.turnId,
        text: reply.text,
        status: reply.status === 'awaiting-input' ? 'complete' : reply.status,
        model: reply.model,
        ...(reply.note ? { note: reply.note } : {}),
      };
    },
    delegate: async (task, options) => (await ready()).delegate(task, 'api', { ...options, on: v1Handler(options?.on) }),
    workers: async () => (await ready()).workers(),
    recall: async (query) => (await ready()).recall(query),
    // Matched on the version 1 event: a turn awaiting the user is version 1's turn.completed.
    on: ((type: string, handler: (event: BatonEvent) => void) => subscribe(type, handler, toV1)) as BatonApi['on'],
    dispose: () => {
      disposed = true;
      detach?.();
      events.dispose();
    },
  };
  return v1;
}

/** asTool is synchronous (a tool is registered at once); the core it calls is waited for at the first call. */
function lazyTool(ready: () => Promise<BatonAccess>, options: Parameters<BatonApiV2['asTool']>[0]): ReturnType<BatonApiV2['asTool']> {
  let tool: ReturnType<BatonAccess['asTool']> | undefined;
  const get = async (): Promise<ReturnType<BatonAccess['asTool']>> => (tool ??= (await ready()).asTool(options));
  const { name } = checkAsToolOptions(options);
  return {
    name,
    description: options?.description ?? 'Send one message to Baton, the workspace orchestrator, and return its reply.',
    parameters: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message for Baton\u2019s orchestrator, as a user would type it in Baton\u2019s panel.' } },
      required: ['message'],
      additionalProperties: false,
    },
    invoke: async (input, o) => (await get()).invoke(input, o),
    handler: async (args, invocation) => (await get()).handler(args, invocation),
    languageModelTool: (vscode) => ({
      invoke: async (o, token) => (await get()).languageModelTool(vscode).invoke(o, token),
    }),
  };
}
