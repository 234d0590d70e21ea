// One orchestrator per unit test on the production wiring (createBatonCore, a real SqlJsStore in a temp folder) with the
// runtime in memory, shared by the orchestrator's unit tests. Registers the afterEach that disposes it and checks
// that every scripted run was used and none is left in flight.
import * as assert from 'node:assert/strict';
import type { BatonCoreDeps } from '../../src/core/batonCore';
import type { Origin, TurnResult } from '../../src/core/orchestrator/events';
import { TurnError, type TurnHandle } from '../../src/core/orchestrator/orchestrator';
import { startUnitCore, type UnitCore } from './inMemoryCore';

export interface UnitOrchestrator {
  start(overrides?: Partial<BatonCoreDeps>): Promise<UnitCore>;
  send(text: string, origin?: Origin): TurnHandle;
  /** The conversation log as [role, content, status], oldest first. */
  log(): Array<[string, string, string | null]>;
  /** The error `handle` failed with; fails the test if it settled instead. */
  failure(handle: TurnHandle): Promise<TurnError>;
  /** The running test's core (after start). */
  readonly core: UnitCore;
}

export function unitOrchestrator(): UnitOrchestrator {
  let f: UnitCore | undefined;
  afterEach(async () => {
    if (!f) return;
    const { sessions } = f;
    await f.dispose();
    f = undefined;
    sessions.assertScriptDone();
    assert.equal(sessions.inFlight, 0, 'no run is left in flight');
  });
  return {
    async start(overrides = {}) {
      f = await startUnitCore({ overrides });
      return f;
    },
    send: (text, origin = { channel: 'panel' }) => f!.core.orchestrator.enqueue(text, origin),
    log: () => f!.core.store.recentLog(100).map((e) => [e.role, e.content, e.status]),
    async failure(handle) {
      const err = await handle.done.then(
        (r: TurnResult) => assert.fail(`expected the turn to fail, it settled ${r.status}: ${r.content}`),
        (e: unknown) => e,
      );
      assert.ok(err instanceof TurnError, String(err));
      return err;
    },
    get core() {
      assert.ok(f, 'start() first');
      return f;
    },
  };
}
