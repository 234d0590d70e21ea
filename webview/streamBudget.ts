// How much streamed text one animation frame renders. A fixed number of characters made frames of very different
// lengths: 2 KB of prose is a paragraph to re-render, 2 KB of a task list or table is 70 rows to parse, sanitize and
// lay out (issue 20: 30–40 ms of script in one frame, measured in Chromium). So the budget follows what the text
// being streamed costs: after each frame it is set to the characters the last frame's rate allows in FRAME_MS.
// Text that arrives faster than that waits for the next frames (the reply catches up within a few frames of the
// model pausing); a frame never spends much more than FRAME_MS on it, whatever the text.
//
// The rate is taken over the whole frame, not the script alone: the style, layout and paint of the rows a frame adds
// cost two to three times their script (traced in Chromium, bench/traceStream.ts), so a budget of 6 ms of script let
// frames of 25–45 ms of main-thread work through. The frame is timed from the start of its script to a task posted
// from it, which runs once the frame's rendering (part of the same task) is done.

/** Main-thread time a frame may spend on streamed text, its rendering included; the rest of 16 ms is the browser's. */
export const FRAME_MS = 10;
/** Bounds on the characters per frame: the lower keeps a slow stream moving, the upper bounds a frame's new DOM. */
export const MIN_FLUSH_CHARS = 256;
export const MAX_FLUSH_CHARS = 8192;
/** Applies fewer than this say little about the rate (a fixed cost per frame dominates them). */
const MIN_SAMPLE = 64;

export class StreamBudget {
  /**
   * Characters the next frame may apply. The least at first: before a frame has measured what the text costs, 1,024
   * characters of a task list or table made the stream's first frame its longest (24–44 ms of CPU, traced).
   */
  chars = MIN_FLUSH_CHARS;

  /** A frame applied `applied` characters in `ms` of main-thread time (script, style, layout and paint). */
  record(applied: number, ms: number): void {
    if (applied < MIN_SAMPLE) return;
    // A rate measured over a few characters overstates it (the frame's fixed cost), so the budget errs small; it
    // grows at most twofold a frame, so one quick frame does not let a costly text through in bulk.
    const fit = Math.floor((FRAME_MS * applied) / Math.max(ms, 0.1));
    this.chars = Math.max(MIN_FLUSH_CHARS, Math.min(MAX_FLUSH_CHARS, fit, this.chars * 2));
  }

  /**
   * Called from an animation frame that applied `applied` characters, its script having started at `started`
   * (performance.now()): records the frame once its rendering is done.
   */
  recordFrame(applied: number, started: number): void {
    if (applied < MIN_SAMPLE) return;
    afterFrame(() => this.record(applied, performance.now() - started));
  }
}

interface PostTask {
  postTask(fn: () => void, options: { priority: 'user-blocking' }): Promise<void>;
}

let channel: MessageChannel | undefined;
const waiting: Array<() => void> = [];

/**
 * Runs `fn` in a task after the current one: from an animation frame, once that frame's style, layout and paint ran.
 * A user-blocking task where the browser has them (Chromium's scheduler.postTask): a plain message waits behind
 * every task queued before it, and a flood of deltas queues hundreds (one message each), which the frame would be
 * charged for.
 */
function afterFrame(fn: () => void): void {
  const scheduler = (globalThis as { scheduler?: PostTask }).scheduler;
  if (scheduler?.postTask) {
    void scheduler.postTask(fn, { priority: 'user-blocking' });
    return;
  }
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => {
      for (const f of waiting.splice(0)) f();
    };
  }
  if (!waiting.length) channel.port2.postMessage(0);
  waiting.push(fn);
}
