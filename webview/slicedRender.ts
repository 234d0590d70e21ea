// A settled message's markdown rendered in frame-sized slices. Rendered in one go, a long reply held the main thread
// for as long as it took (in Chromium, 700 ms of script and then 300 ms of layout for 200 KB of ordinary sections with
// code), on opening a conversation, scrolling to it, or when a streamed reply ended; a worker's report in its card the
// same. The text is cut into the blocks a stream of it is cut into (markdownStream.ts); each slice renders blocks until
// its time is up, sanitizes them in one go and appends them (or, from the end, puts them before what is in). A block
// renders the same whatever comes before or after it, so the DOM in the end is exactly the one-shot render's, as a
// streamed message's is.
//
// What must stay true: a message that fits in one slice (nearly all of them) is rendered at once, in the caller's
// frame, as before; while slices remain, the body carries aria-busy (assistive technology waits, the bench and tests
// wait for it to go); a slice is never smaller than one block, so a single block's cost (bounded in markdownRender.ts:
// MAX_RENDERED_BLOCK, MAX_DELIMITERS, HIGHLIGHT_LIMIT, MAX_COLUMNS) is the most a frame can take beyond the slice.
// From the end, a message of more than one part stays busy a frame or two after its last slice, until its parts close.
import { beginsPart, PartsDom, PartsDomFromEnd } from './bodyParts';
import type { RenderEnv } from './markdownRender';
import { renderAnyBlock } from './markdownRows';
import { splitBlocks } from './markdownStream';
import { sanitizedFragment } from './sanitize';

/**
 * Script per slice, in ms: the markdown, and the sanitizing and inserting of what it rendered, forecast from the
 * HTML's length at the rate the slices before took (insertMsPerChar); the other messages' renders in that frame share
 * one slice. A budget of 6 ms of markdown alone made slices of 8–25 ms of script (a 200 KB reply, traced): sanitizing
 * and inserting cost about as much again, more for highlighted code (a span per token) than for prose, and the frames
 * with the heaviest slices were its longest. Counted whole at 6 ms (tried before the parts) the slices halved and a
 * 200 KB reply took 2.2 times the CPU in all for no shorter longest task: each frame's layout and paint then walked
 * every block so far. What a slice does not bound is the frame's layout and paint: a long body's blocks go in parts
 * laid out only near the viewport (bodyParts.ts), so that stays about one part's.
 */
export const SLICE_MS = 10;

/**
 * Sanitizing and inserting, in ms per character of HTML: the slices so far, weighted to the recent ones. The first
 * guess is what a slice of an ordinary reply took (Chromium, a machine under some load).
 */
let insertMsPerChar = 0.0004;

interface Job {
  el: Element;
  blocks: string[];
  /** The next block to render: forward from the first, or (fromEnd) back from the last. */
  next: number;
  env: RenderEnv;
  parts: PartsDom;
  fromEnd: PartsDomFromEnd | undefined;
  /** Frames to let go by before the next slice. */
  wait: number;
  done: (() => void) | undefined;
  cancelled: boolean;
}

const jobs: Job[] = [];
let frame = 0;
const reads: Array<() => void> = [];

/**
 * `read` runs in each frame that has slices, before they write: layout is still clean there, so reading boxes costs
 * nothing (the message list's viewport check).
 */
export function beforeSlices(read: () => void): void {
  reads.push(read);
}

/**
 * Renders `text` into `el` (replacing its children): what fits in a slice now, the rest a slice per animation frame.
 * `until`: when the first slice must end (performance.now()'s clock), when the caller's frame has less than a slice
 * left (the list renders the messages coming into view within its own budget); at least one block goes in at once
 * all the same, so the element never shows nothing. `done` runs once all of it is in (at once, when it fits).
 * `fromEnd`: its last blocks first, and each slice then goes in before what is in (the view follows the message's
 * end, so the user sees the end at once and it stays put while the rest comes in above, off screen). In order, each
 * slice went in at the end the view follows, so every frame laid out and painted a whole new screen of the reply:
 * with the slice's script, 40–80 ms frames (issue 22). Either way the DOM in the end is the one-shot render's.
 * Returns a function that stops what is left (the message was rendered again).
 */
export function renderSliced(el: Element, text: string, env: RenderEnv, done?: () => void, until = performance.now() + SLICE_MS, fromEnd = false): () => void {
  const blocks = splitBlocks(text);
  fromEnd &&= blocks.length > 1;
  const job: Job = {
    el,
    blocks,
    next: fromEnd ? blocks.length - 1 : 0,
    env,
    parts: new PartsDom(el),
    fromEnd: fromEnd ? new PartsDomFromEnd(el) : undefined,
    // From the end, the next frame lays out and paints the first slice, a screenful that is all new (8–10 ms of
    // layout and paint, traced); a second slice in it made it the render's longest frame.
    wait: fromEnd ? 1 : 0,
    done,
    cancelled: false,
  };
  el.replaceChildren();
  if (!slice(job, Math.min(until, performance.now() + SLICE_MS))) {
    el.setAttribute('aria-busy', 'true');
    jobs.push(job);
    schedule();
  }
  return () => {
    job.cancelled = true;
    el.removeAttribute('aria-busy');
  };
}

/**
 * Renders the job's next blocks (at least one) while the time so far and the forecast of inserting what is not in
 * yet leave `deadline` unreached, and puts them in; true when the job is done.
 */
function slice(job: Job, deadline: number): boolean {
  if (job.fromEnd) {
    // The last slice's parts close a frame or two after it (PartsDomFromEnd); the message is busy until then.
    if (job.next < 0 ? job.fromEnd.nextSlice(true) : sliceFromEnd(job, job.fromEnd, deadline)) return false;
  } else if (sliceForward(job, deadline)) return false;
  job.el.removeAttribute('aria-busy');
  job.done?.();
  return true;
}

/** A slice in order: true while blocks are left. */
function sliceForward(job: Job, deadline: number): boolean {
  let html = '';
  let into = job.parts.at(job.next);
  do {
    // Sanitized once per part the slice writes in (a slice is far fewer blocks than a part: once or twice); what
    // went before a part is in before the part is made.
    if (html && beginsPart(job.next)) {
      insert(into, html, false);
      html = '';
    }
    into = job.parts.at(job.next);
    html += renderAnyBlock(job.blocks[job.next++]!, job.env);
  } while (job.next < job.blocks.length && performance.now() + html.length * insertMsPerChar < deadline);
  // Into the live DOM slice by slice: laid out as it grows, each slice's text is shaped once. Kept off the document
  // and put in at the end, a 200 KB reply's first layout was one 300 ms frame.
  insert(into, html, false);
  return job.next < job.blocks.length;
}

/** A slice from the end back: true while blocks are left. */
function sliceFromEnd(job: Job, parts: PartsDomFromEnd, deadline: number): boolean {
  parts.nextSlice();
  // The slice's blocks, last first; joined in order once per part they go in.
  let html: string[] = [];
  let size = 0;
  let into = parts.at(job.next);
  do {
    if (html.length && beginsPart(job.next + 1)) {
      insert(into, html.reverse().join(''), true);
      html = [];
      size = 0;
    }
    into = parts.at(job.next);
    const block = renderAnyBlock(job.blocks[job.next--]!, job.env);
    html.push(block);
    size += block.length;
  } while (job.next >= 0 && performance.now() + size * insertMsPerChar < deadline);
  insert(into, html.reverse().join(''), true);
  return job.next >= 0 || parts.isOpen;
}

/** Sanitizes `html` into `into`, at its end or (`first`) before what is in it; learns the rate from what it took. */
function insert(into: Element, html: string, first: boolean): void {
  const started = performance.now();
  if (first) into.prepend(sanitizedFragment(html));
  else into.append(sanitizedFragment(html));
  // Small ones say little about the rate (performance.now()'s grain is 0.1 ms or coarser).
  if (html.length > 2000) insertMsPerChar = 0.7 * insertMsPerChar + (0.3 * (performance.now() - started)) / html.length;
}

function schedule(): void {
  if (!frame) frame = requestAnimationFrame(run);
}

/** One slice of work per frame, shared by every message waiting, oldest first. */
function run(): void {
  frame = 0;
  for (const read of reads) read();
  for (const job of jobs) job.fromEnd?.look();
  // A job told to wait lets this frame go by.
  const resting = new Set<Job>();
  for (const job of jobs) {
    if (job.wait <= 0) continue;
    job.wait--;
    resting.add(job);
  }
  const deadline = performance.now() + SLICE_MS;
  for (let i = 0; i < jobs.length && performance.now() < deadline;) {
    const job = jobs[i]!;
    // One slice a job a frame: a job from the end whose blocks are all in waits for its parts to close (bodyParts.ts).
    if (job.cancelled || (!resting.has(job) && slice(job, deadline))) jobs.splice(i, 1);
    else i++;
  }
  if (jobs.length) schedule();
}
