// Opening the panel: on a long history (first paint, then a scroll to the top), and switching to another conversation
// from the list. Each in a page built and served as the extension does (see test/support/webviewPage.ts).
import type { Browser } from 'playwright-core';
import { firstPage, type HostMessage, type Snapshot } from '../src/shared/protocol';
import { openWebviewPage, waitInPage, type WebviewBuild } from '../test/support/webviewPage';
import { historySnapshot } from './panelContent';
import { assertClean, SCROLL_DRIVER, SWITCH_DRIVER } from './panelDrivers';
import type { TraceEvent } from './traceOpen';

export interface OpenResult {
  firstPaintMs: number;
  snapshotToPaintMs: number;
  renderedAtPaint: number;
  scrollMaxFrameMs: number;
  scrollFrames: number;
  scrollFramesOver50: number;
}

/**
 * How the extension serves the page: once its core is built, with the newest messages in the HTML (firstPage) and the
 * whole snapshot as the answer to `ready`; before that (the view restored while the extension starts), without them.
 */
function served(snapshot: Snapshot, withFirstPage: boolean): { replyToReady: HostMessage[]; firstPage?: HostMessage } {
  return withFirstPage
    ? { firstPage: { type: 'snapshot', seq: 1, snapshot: firstPage(snapshot) }, replyToReady: [{ type: 'snapshot', seq: 2, snapshot }] }
    : { replyToReady: [{ type: 'snapshot', seq: 1, snapshot }] };
}

export async function openOnce(
  browser: Browser,
  build: WebviewBuild,
  snapshot: Snapshot,
  scroll: boolean,
  withFirstPage: boolean,
  roundTrip = false,
): Promise<OpenResult> {
  const wp = await openWebviewPage(browser, { build, roundTrip, ...served(snapshot, withFirstPage) });
  try {
    await waitInPage(wp.page, 'window.__batonHost.firstPaintAt !== undefined');
    const timing = (await wp.page.evaluate(
      `({ paint: __batonHost.firstPaintAt, ready: __batonHost.readyAt, rendered: document.querySelectorAll('[data-rendered]').length })`,
    )) as { paint: number; ready: number; rendered: number };
    let scrolled = { maxFrameMs: NaN, frames: 0, framesOver50: 0 };
    if (scroll) {
      // Every message in place (the whole snapshot follows the first page), then the first lazy renders settle, so
      // this measures scrolling, not opening.
      const deadline = Date.now() + 30_000;
      while (((await wp.page.evaluate(`document.querySelectorAll('[data-testid="message"]').length`)) as number) < snapshot.messages.length) {
        if (Date.now() > deadline) throw new Error('the history never came in whole');
        await wp.page.waitForTimeout(50);
      }
      await wp.page.waitForTimeout(500);
      scrolled = (await wp.page.evaluate(`${SCROLL_DRIVER}(600)`)) as typeof scrolled;
    }
    await assertClean(wp.errors, await wp.cspViolations());
    return {
      firstPaintMs: timing.paint,
      // With the first page, `ready` is said after the paint: this figure is the snapshot's path only.
      snapshotToPaintMs: withFirstPage ? NaN : timing.paint - timing.ready,
      renderedAtPaint: timing.rendered,
      scrollMaxFrameMs: scrolled.maxFrameMs,
      scrollFrames: scrolled.frames,
      scrollFramesOver50: scrolled.framesOver50,
    };
  } finally {
    await wp.close();
  }
}

/** A 200-message conversation opened from the list while a short one is shown: until its first paint. */
export async function switchOnce(browser: Browser, build: WebviewBuild, history: Snapshot): Promise<number> {
  const title = 'Why the handler returns 500';
  const list = [
    { id: 'c-short', title: 'A short chat', lastActivity: Date.now(), messages: 2, busy: false, unread: false },
    { id: 'c-long', title, lastActivity: Date.now() - 60_000, messages: 200, busy: false, unread: true },
  ];
  const shown: Snapshot = { ...historySnapshot(2), conversation: 'c-short', conversations: list };
  const target: Snapshot = { ...history, conversation: 'c-long', conversations: list.map((c) => ({ ...c, unread: false })) };
  const wp = await openWebviewPage(browser, { build, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: shown }] });
  try {
    await waitInPage(wp.page, 'window.__batonHost.firstPaintAt !== undefined');
    await wp.page.waitForTimeout(200);
    const ms = (await wp.page.evaluate(`${SWITCH_DRIVER}(${JSON.stringify(target)}, ${JSON.stringify(title)})`)) as number;
    await assertClean(wp.errors, await wp.cspViolations());
    return ms;
  } finally {
    await wp.close();
  }
}

/**
 * The renderer's main-thread CPU time (thread time, from a Chromium trace) from navigation to the first paint of
 * `snapshot`: the panel's own work on the way to that paint. Other processes competing for the cores stretch the
 * wall-clock figure (±50 % on a shared machine) far more than this one.
 */
export async function firstPaintCpuMs(browser: Browser, build: WebviewBuild, snapshot: Snapshot, withFirstPage: boolean): Promise<number> {
  const wp = await openWebviewPage(browser, {
    build,
    ...served(snapshot, withFirstPage),
    beforeLoad: (page) => browser.startTracing(page, { categories: ['toplevel', 'blink.user_timing', 'devtools.timeline'] }),
  });
  try {
    await waitInPage(wp.page, 'window.__batonHost.firstPaintAt !== undefined');
    const events = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents;
    // The page's stub marks the first paint (a user-timing mark, on the trace's own clock): navigationStart plus the
    // page's performance.now() missed it by a few ms, enough to count the long frame that follows the paint.
    const paintMark = events.find((e) => e.name === 'baton:first-paint');
    if (!paintMark) throw new Error('the trace has no baton:first-paint mark');
    const nav = events.filter((e) => e.name === 'navigationStart' && e.pid === paintMark.pid && e.ts < paintMark.ts).sort((a, b) => b.ts - a.ts)[0];
    if (!nav) throw new Error('the trace has no navigationStart');
    const end = paintMark.ts;
    let cpu = 0;
    for (const e of events) {
      if (e.pid !== nav.pid || e.tid !== nav.tid || e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask' || e.ts < nav.ts || e.ts >= end) continue;
      cpu += (e.tdur ?? e.dur ?? 0) / 1000;
    }
    await assertClean(wp.errors, await wp.cspViolations());
    return cpu;
  } finally {
    await wp.close();
  }
}
