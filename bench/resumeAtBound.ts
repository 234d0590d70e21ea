// What the bound on a conversation's session history (SESSION_HISTORY_BYTES) leaves the user paying: the first reply
// after a reload (a new runtime resumes the session, reading its whole history) with the history just under the bound,
// against the same with a history of one short turn. In turns, on one scripted server.
import { SESSION_HISTORY_BYTES } from '../src/core/store/bounds';
import { startCore } from '../test/support/orchestratorFixture';
import type { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { median, type BenchFigure } from './figure';

const LONG = `${'All of it, at length. '.repeat(8600)}`;

async function firstReplyAfterReload(server: ScriptedModelServer, historyBytes: number, i: number): Promise<{ ms: number; history: number }> {
  const core = await startCore({ server, flushDelayMs: 250 });
  try {
    await core.orchestrator.enqueue(`yesterday ${i}`, { channel: 'panel' }).done;
    const id = core.orchestrator.currentSessionId!;
    for (let n = 0; ((await core.sessions.historyBytes(id)) ?? 0) + LONG.length * 1.05 < historyBytes; n++)
      await core.orchestrator.enqueue(`fill ${i}.${n}`, { channel: 'panel' }).done;
    const history = (await core.sessions.historyBytes(id)) ?? 0;
    await core.restart();
    const t0 = performance.now();
    await core.orchestrator.enqueue(`after the reload ${i}`, { channel: 'panel' }).done;
    if (core.orchestrator.currentSessionId !== id) throw new Error('the session was not resumed');
    return { ms: performance.now() - t0, history };
  } finally {
    await core.dispose();
  }
}

export async function benchResumeAtBound(server: ScriptedModelServer, rounds: number): Promise<BenchFigure[]> {
  const fill = server.on({ lastUserIncludes: '[via panel] fill ' }, { text: LONG }).always();
  const short: number[] = [];
  const full: number[] = [];
  let history = 0;
  try {
    for (let i = 0; i < rounds; i++) {
      short.push((await firstReplyAfterReload(server, 0, i)).ms);
      const f = await firstReplyAfterReload(server, SESSION_HISTORY_BYTES, i);
      full.push(f.ms);
      history = f.history;
    }
  } finally {
    fill.remove();
  }
  return [
    { name: 'resumed conversation, a short session history: the first reply after a reload (median)', value: median(short), unit: 'ms' },
    {
      name: `resumed conversation, its session history at its bound (${(history / 2 ** 20).toFixed(1)} MB): the first reply after a reload (median)`,
      value: median(full),
      unit: 'ms',
    },
    { name: 'the first reply after a reload, history at its bound / short', value: median(full) / median(short), unit: '×' },
  ];
}
