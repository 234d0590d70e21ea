// Doctor's line on the workers' sandbox (src/core/workers/sandboxReport.ts).
import * as assert from 'node:assert/strict';
import { sandboxReport } from '../../src/core/workers/sandboxReport';

describe("Doctor's line on the workers' sandbox", () => {
  const linux = { available: true, networkAvailable: true };

  it('is a failure, with the runtime\u2019s reason, when the sandbox failed for the workers that ran, though the machine has it', () => {
    const all = sandboxReport(linux, [
      { name: 'a', sandbox: { state: 'failed', reason: 'bwrap: setting up uid map: Permission denied' } },
      { name: 'b', sandbox: { state: 'failed' } },
    ]);
    assert.equal(all.ok, false);
    assert.match(
      all.text,
      /could not engage it for every worker that ran: a \(bwrap: setting up uid map: Permission denied\); b \(the runtime gave no reason\)/,
    );
    const some = sandboxReport(linux, [
      { name: 'a', sandbox: { state: 'engaged' } },
      { name: 'b', sandbox: { state: 'failed', reason: 'no user namespaces' } },
    ]);
    assert.equal(some.ok, false);
    assert.match(some.text, /for 1 of 2 workers: b \(no user namespaces\)/);
  });

  it('is fine while it held, listing each worker\u2019s state; names what is missing when the machine has none', () => {
    assert.deepEqual(sandboxReport(linux, [{ name: 'a', sandbox: { state: 'engaged' } }, { name: 'b' }]), { ok: true, text: 'available; workers: a: engaged' });
    assert.deepEqual(sandboxReport({ ...linux, networkAvailable: false, networkReason: 'slirp4netns is missing' }, []), {
      ok: true,
      text: 'available (network off: slirp4netns is missing)',
    });
    const none = sandboxReport({ available: false, reason: 'Bubblewrap (bwrap) is not installed', fix: 'Install bubblewrap.', networkAvailable: false }, []);
    assert.equal(none.ok, false);
    assert.match(none.text, /^unsandboxed: Bubblewrap \(bwrap\) is not installed\. Install bubblewrap\. Until then/);
  });
});
