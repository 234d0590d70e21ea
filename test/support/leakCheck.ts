// Root hooks for the integration run (scripts/test.mjs requires this file): the run fails when a test leaves a
// scripted server listening, a temp folder on disk or a Copilot runtime running (see leaks.ts), or, once every test
// has ended, anything but a timer keeping the process alive.
import type { Context } from 'mocha';
import { leftovers, setCurrentTest } from './leaks';

const SETTLE_MS = 3000;
/** How long after the last test the process may take to end by itself before the watchdog says what holds it. */
const END_MS = 15_000;

/** Counts of what keeps the process alive (Node's own names: Timeout, PipeWrap, TCPServerWrap, ProcessWrap…). */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

let atStart = new Map<string, number>();

export const mochaHooks = {
  beforeAll(): void {
    atStart = resources();
  },
  beforeEach(this: Context): void {
    setCurrentTest(this.currentTest?.fullTitle() ?? '(unknown test)');
  },
  async afterAll(this: Context): Promise<void> {
    this.timeout(SETTLE_MS + 2000);
    // A runtime that was told to stop may take a moment to exit.
    let left = leftovers();
    for (const until = Date.now() + SETTLE_MS; left.length && Date.now() < until; left = leftovers()) await new Promise((r) => setTimeout(r, 100));
    if (left.length) throw new Error(`The integration tests left ${left.length} thing(s) behind:\n  ${left.join('\n  ')}`);
    // The run ends when nothing holds the process. A timer may: vscode-jsonrpc (the SDK's connection) re-arms its
    // partial-message timer every 10 s for ever once a runtime died halfway through writing a message (measured: a
    // run that never ended). Anything else still open (a socket, a server, a child's pipe) fails the run, by name.
    setTimeout(() => {
      const now = resources();
      const extra = [...now]
        .filter(([name, n]) => name !== 'Timeout' && n > (atStart.get(name) ?? 0))
        .map(([name, n]) => `${name} ×${n - (atStart.get(name) ?? 0)}`);
      if (extra.length) {
        console.error(`The integration run did not end by itself: still open after the last test: ${extra.join(', ')}.`);
        // Mocha sets the exit code (its failures) in an 'exit' listener of its own: this one comes after it.
        process.on('exit', () => (process.exitCode = 1));
      } else console.error(`The integration run was ended by its watchdog: only ${now.get('Timeout') ?? 0} timer(s) kept it alive.`);
      process.exit();
    }, END_MS).unref();
  },
};
