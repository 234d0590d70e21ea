// What 2 s of idle costs the first work after it, whoever does it. On the development machine (a VM sharing its
// cores) work that touches memory runs several times slower for the first tens of milliseconds after the process
// slept, with no page fault, while a loop of arithmetic does not slow at all; a CPU profiler sampling every 50 µs
// keeps the process from sleeping and hides it. A first reply after the panel was open 2 s pays this, its warm reply
// (sent right after) does not: a warm reply after the same pause is the comparison that leaves it out.
import { median, type BenchFigure } from './figure';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fixed piece of work that allocates and reads a few MB, like a turn's bookkeeping does. */
function touchMemory(): number {
  const data = { rows: Array.from({ length: 2_000 }, (_, i) => ({ i, text: 'x'.repeat(i % 50) })) };
  const start = performance.now();
  for (let k = 0; k < 5; k++) JSON.parse(JSON.stringify(data));
  return performance.now() - start;
}

/** The same work after `idleMs` asleep and right after another run, `rounds` times each. */
export async function benchIdlePenalty(rounds: number, idleMs = 2_000): Promise<BenchFigure[]> {
  for (let i = 0; i < 30; i++) touchMemory();
  const afterIdle: number[] = [];
  const busy: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await sleep(idleMs);
    afterIdle.push(touchMemory());
    busy.push(touchMemory());
  }
  return [
    { name: `the machine: a fixed memory-touching task right after another (median)`, value: median(busy), unit: 'ms' },
    { name: `the machine: the same task after ${idleMs / 1000} s asleep (median)`, value: median(afterIdle), unit: 'ms' },
    { name: `the machine: after ${idleMs / 1000} s asleep / right after`, value: median(afterIdle) / median(busy), unit: '×' },
  ];
}

/** A reply timed after the process slept as long as the first reply's wait (Enter 2 s after opening). */
export async function afterSameIdle<T>(reply: () => Promise<T>, idleMs = 2_000): Promise<T> {
  await sleep(idleMs);
  return reply();
}
