// A message's time in the user's locale: "14:05" today, "27 Nov, 14:05" on an earlier day (a conversation reopened
// a week later must not read as this morning's), with the year when it is not this one; the full date in its tooltip. The formatters are made on first use,
// not at load: the first Intl object a page makes loads the locale data (10–35 ms measured in Chromium), which the
// panel paid before it could ask for its history. The messages a snapshot paints first get their time just after that
// paint (as their code gets its colours, see deferredHighlight.ts): the history shows without waiting for it.
import { h } from './dom';

let time: Intl.DateTimeFormat | undefined;
let fullTime: Intl.DateTimeFormat | undefined;
let dayTime: Intl.DateTimeFormat | undefined;
let yearTime: Intl.DateTimeFormat | undefined;
// Made once, not per call: Date#toLocale*String builds a formatter per call, which made a 1,000-message snapshot cost
// 150 ms.
const TIME_OPTIONS: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' };
const FULL_OPTIONS: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };
const DAY_OPTIONS: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', ...TIME_OPTIONS };
const YEAR_OPTIONS: Intl.DateTimeFormatOptions = { year: 'numeric', ...DAY_OPTIONS };

const pending: Array<[HTMLElement, Date]> = [];

/**
 * The formatters, made on first call (warmUp.ts calls it in idle time): made by the first message rendered after the
 * panel started, they were 25–40 ms of that message's frame, whatever the message.
 */
export function timeFormatters(): { time: Intl.DateTimeFormat; fullTime: Intl.DateTimeFormat } {
  time ??= new Intl.DateTimeFormat(undefined, TIME_OPTIONS);
  fullTime ??= new Intl.DateTimeFormat(undefined, FULL_OPTIONS);
  return { time, fullTime };
}

/** The formatter for a message sent at `date`, as seen `now`: the time alone on the same local day. */
function formatterFor(date: Date, now: Date): Intl.DateTimeFormat {
  if (date.getFullYear() !== now.getFullYear()) return (yearTime ??= new Intl.DateTimeFormat(undefined, YEAR_OPTIONS));
  if (date.getMonth() !== now.getMonth() || date.getDate() !== now.getDate()) return (dayTime ??= new Intl.DateTimeFormat(undefined, DAY_OPTIONS));
  return timeFormatters().time;
}

function fill(el: HTMLElement, date: Date): void {
  el.title = timeFormatters().fullTime.format(date);
  el.textContent = formatterFor(date, new Date()).format(date);
}

/** The `<time>` element for `date`; `afterPaint`: its text is written once the next frame has been painted. */
export function timeEl(date: Date, afterPaint = false): HTMLElement {
  const el = h('time', { class: 'message-time', datetime: date.toISOString() });
  if (!afterPaint) {
    fill(el, date);
    return el;
  }
  // In the first idle time after that frame (asked for from the frame, so never before it), or 200 ms on at most.
  if (!pending.length) requestAnimationFrame(() => requestIdleCallback(flushPending, { timeout: 200 }));
  pending.push([el, date]);
  return el;
}

function flushPending(): void {
  for (const [el, date] of pending.splice(0)) if (!el.textContent) fill(el, date);
}
