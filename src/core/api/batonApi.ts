// The public API another extension gets from activate() (typed in api/baton.d.ts). It is usable at
// once: calls wait for Baton's core, which is built just after activation, and subscriptions made
// before that are attached when it is ready. Everything it asks is tagged "[via api]".
import type { BatonApi, BatonDisposable, BatonEvent } from '../../../api/baton';
import { Emitter } from '../util/emitter';
import type { BatonAccess } from './batonAccess';

export function createBatonApi(access: () => Promise<BatonAccess>): BatonApi & { dispose(): void } {
  const events = new Emitter<BatonEvent>();
  let detach: (() => void) | undefined;
  let disposed = false;
  // Attached on first use, so activation does not build the core for an API nobody calls.
  let attaching: Promise<BatonAccess> | undefined;
  const ready = (): Promise<BatonAccess> =>
    (attaching ??= access().then((a) => {
      if (!disposed) detach = a.events.onEvent((e) => events.fire(e));
      return a;
    }));

  const on = (type: string, handler: (event: BatonEvent) => void): BatonDisposable => {
    const off = events.event((e) => {
      if (type === '*' || e.type === type) handler(e);
    });
    // Nobody may miss events because the core was not built yet when they subscribed.
    void ready().catch(() => undefined);
    return { dispose: () => void off() };
  };

  return {
    apiVersion: 1,
    ask: async (text, options) => (await ready()).ask(text, 'api', options ?? {}),
    delegate: async (task, options) => (await ready()).delegate(task, 'api', options),
    workers: async () => (await ready()).workers(),
    recall: async (query) => (await ready()).recall(query),
    on: on as BatonApi['on'],
    dispose: () => {
      disposed = true;
      detach?.();
      events.dispose();
    },
  };
}
