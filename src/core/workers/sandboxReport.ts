// Doctor's line on the workers' sandbox: whether this machine can hold one, and whether it held for the workers that
// ran. A machine that can is no comfort when the runtime said, for every worker, that it could not: that is a failure
// to show, with the runtime's reason, not a green line.
import type { SandboxStatus, SandboxSupport } from '../copilot/sandbox';

export function sandboxReport(
  support: Pick<SandboxSupport, 'available' | 'reason' | 'fix' | 'networkAvailable' | 'networkReason'>,
  workers: ReadonlyArray<{ name: string; sandbox?: Pick<SandboxStatus, 'state' | 'reason'> }>,
): { ok: boolean; text: string } {
  if (!support.available) {
    return { ok: false, text: `unsandboxed: ${support.reason}. ${support.fix ?? ''} Until then every shell command of a worker asks you first.` };
  }
  const states = workers.flatMap((w) => (w.sandbox ? [`${w.name}: ${w.sandbox.state}`] : []));
  const failed = workers.filter((w) => w.sandbox?.state === 'failed');
  if (failed.length) {
    const which = failed.map((w) => `${w.name} (${w.sandbox?.reason ?? 'the runtime gave no reason'})`).join('; ');
    return {
      ok: false,
      text: `available on this machine, but the runtime could not engage it for ${failed.length === states.length ? 'every worker that ran' : `${failed.length} of ${states.length} workers`}: ${which}. Each worker's card says what that meant for its commands.`,
    };
  }
  return {
    ok: true,
    text: `available${support.networkAvailable ? '' : ` (network off: ${support.networkReason})`}${states.length ? `; workers: ${states.join(', ')}` : ''}`,
  };
}
