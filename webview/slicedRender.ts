// A settled message's markdown rendered in frame-sized slices. Rendered in one go, a long reply held the main thread
// for as long as it took (in Chromium, 700 ms of script and then 300 ms of layout for 200 KB of ordinary sections with
// code), on opening a conversation, scrolling to it, or when a streamed reply ended; a worker's report in its card the
// same. The text is cut into the blocks a stream of it is cut into (markdownStream.ts); each slice renders blocks until
// its time is up, sanitizes them in one go and appends them. A block renders the same whatever comes after it, so the
// DOM in the end is exactly the one-shot render's, as a streamed message's is.
//
// What must stay true: a message that fits in one slice (nearly all of them) is rendered at once, in the caller's
// frame, as before; while slices remain, the body carries aria-busy (assistive technology waits, the bench and tests
// wait for it to go); a slice is never smaller than one block, so a single block's cost (bounded in markdownRender.ts:
// MAX_RENDERED_BLOCK, MAX_DELIMITERS, HIGHLIGHT_LIMIT, MAX_COLUMNS) is the most a frame can take beyond the slice.
import { beginsPart, PartsDom } from './bodyParts';
import type { RenderEnv } from './markdownRender';
import { renderAnyBlock } from './markdownRows';
import { splitBlocks } from './markdownStream';
import { sanitizedFragment } from './sanitize';

/**
 * Markdown work per slice, in ms. Sanitizing and inserting what it rendered cost about as much again; the other
 * messages' renders in that frame share one slice. What a slice does not bound is the frame's layout and paint: a long
 * body's blocks go in parts laid out only near the viewport (bodyParts.ts), so that stays about one part's. Before the
 * parts, it grew with the message (10–30 ms a frame near the end of a 200 KB reply, traced), and a budget that also
 * counted sanitizing made the longest task no shorter (52 ms of CPU against 51) and the render's CPU 2.2 times as much.
 */
export const SLICE_MS = 6;

interface Job {
  el: Element;
  blocks: string[];
  next: number;
  env: RenderEnv;
  parts: PartsDom;
  done: (() => void) | undefined;
  cancelled: boolean;
}

const jobs: Job[] = [];
let frame = 0;

/**
 * Renders `text` into `el` (replacing its children): what fits in a slice now, the rest a slice per animation frame.
 * `until`: when the first slice must end (performance.now()'s clock), when the caller's frame has less than a slice
 * left (the list renders the messages coming into view within its own budget); at least one block goes in at once
 * all the same, so the element never shows nothing. `done` runs once all of it is in (at once, when it fits).
 * Returns a function that stops what is left (the message was rendered again).
 */
export function renderSliced(el: Element, text: string, env: RenderEnv, done?: () => void, until = performance.now() + SLICE_MS): () => void {
  const job: Job = { el, blocks: splitBlocks(text), next: 0, env, parts: new PartsDom(el), done, cancelled: false };
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

/** Renders the job's next blocks until `deadline` (at least one), appends them; true when the job is done. */
function slice(job: Job, deadline: number): boolean {
  let html = '';
  let into = job.parts.at(job.next);
  do {
    // Sanitized once per part the slice writes in (a slice is far fewer blocks than a part: once or twice); what
    // went before a part is in before the part is made.
    if (html && beginsPart(job.next)) {
      into.append(sanitizedFragment(html));
      html = '';
    }
    into = job.parts.at(job.next);
    html += renderAnyBlock(job.blocks[job.next++]!, job.env);
  } while (job.next < job.blocks.length && performance.now() < deadline);
  // Into the live DOM slice by slice: laid out as it grows, each slice's text is shaped once. Kept off the document
  // and put in at the end, a 200 KB reply's first layout was one 300 ms frame.
  into.append(sanitizedFragment(html));
  if (job.next < job.blocks.length) return false;
  job.el.removeAttribute('aria-busy');
  job.done?.();
  return true;
}

function schedule(): void {
  if (!frame) frame = requestAnimationFrame(run);
}

/** One slice of work per frame, shared by every message waiting, oldest first. */
function run(): void {
  frame = 0;
  const deadline = performance.now() + SLICE_MS;
  while (jobs.length && performance.now() < deadline) {
    const job = jobs[0]!;
    if (job.cancelled || slice(job, deadline)) jobs.shift();
  }
  if (jobs.length) schedule();
}
