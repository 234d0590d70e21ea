// How much streamed text one animation frame renders. A fixed number of characters made frames of very different
// lengths: 2 KB of prose is a paragraph to re-render, 2 KB of a task list or table is 70 rows to parse, sanitize and
// lay out (issue 20: 30–40 ms of script in one frame, measured in Chromium). So the budget follows what the text
// being streamed costs: after each frame it is set to the characters the last frame's rate allows in STREAM_MS.
// Text that arrives faster than that waits for the next frames (the reply catches up within a few frames of the
// model pausing); a frame never spends much more than STREAM_MS on it, whatever the text.

/** Script time a frame may spend on streamed text; the rest of a 16 ms frame goes to style, layout and paint. */
export const STREAM_MS = 6;
/** Bounds on the characters per frame: the lower keeps a slow stream moving, the upper bounds a frame's new DOM. */
export const MIN_FLUSH_CHARS = 256;
export const MAX_FLUSH_CHARS = 8192;
/** Applies fewer than this say little about the rate (a fixed cost per frame dominates them). */
const MIN_SAMPLE = 64;

export class StreamBudget {
  /** Characters the next frame may apply. */
  chars = 1024;

  /** A frame applied `applied` characters in `ms` of script. */
  record(applied: number, ms: number): void {
    if (applied < MIN_SAMPLE) return;
    // A rate measured over a few characters overstates it (the frame's fixed cost), so the budget errs small; it
    // grows at most twofold a frame, so one quick frame does not let a costly text through in bulk.
    const fit = Math.floor((STREAM_MS * applied) / Math.max(ms, 0.1));
    this.chars = Math.max(MIN_FLUSH_CHARS, Math.min(MAX_FLUSH_CHARS, fit, this.chars * 2));
  }
}
