// The sampling profiler's samples in a Chromium trace (its Profile and ProfileChunk events), for the trace scripts'
// self-time tables (traceOpen.ts --js, traceRender.ts --js).
import type { TraceEvent } from './traceOpen';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url?: string; lineNumber: number };
}

export interface ProfileSample {
  /** When it was taken, on the trace's clock (µs). */
  t: number;
  /** The function on the thread then; `lineNumber` is 0-based. */
  frame: ProfileNode['callFrame'];
  /** The time it stands for: until the next sample. */
  ms: number;
  /** `function file:line`, the self-time tables' key. */
  key: string;
}

/** The samples of process `pid`'s profile taken in [from, to). */
export function* profileSamples(events: TraceEvent[], pid: number, from: number, to: number): Generator<ProfileSample> {
  const nodes = new Map<number, ProfileNode>();
  let t = 0;
  for (const e of events.filter((x) => x.pid === pid && (x.name === 'Profile' || x.name === 'ProfileChunk')).sort((a, b) => a.ts - b.ts)) {
    const data = (e.args?.data ?? {}) as { startTime?: number; cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] }; timeDeltas?: number[] };
    if (e.name === 'Profile') {
      t = data.startTime ?? e.ts;
      continue;
    }
    for (const node of data.cpuProfile?.nodes ?? []) nodes.set(node.id, node);
    const samples = data.cpuProfile?.samples ?? [];
    const deltas = data.timeDeltas ?? [];
    for (let i = 0; i < samples.length; i++) {
      t += deltas[i] ?? 0;
      if (t < from || t >= to) continue;
      const frame = nodes.get(samples[i]!)?.callFrame;
      if (!frame) continue;
      const key = `${frame.functionName || '(anonymous)'} ${(frame.url ?? '').replace(/^.*\//, '')}:${frame.lineNumber + 1}`;
      yield { t, frame, ms: (deltas[i + 1] ?? 0) / 1000, key };
    }
  }
}
