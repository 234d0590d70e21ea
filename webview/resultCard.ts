// A finished worker as people read it: its name, how it ended, how long it ran, what it changed, and its report as
// markdown. The message's `content` is the wrapper the model was given; the panel never shows it when a card exists.
import type { WorkerResultCard } from '../src/shared/protocol';
import { countText } from './countText';
import { button, h } from './dom';
import { highlightLater } from './deferredHighlight';
import type { Post } from './messageView';
import { renderSliced } from './slicedRender';

const END_LABEL: Record<WorkerResultCard['state'], string> = {
  done: 'Finished',
  failed: 'Failed',
  timed_out: 'Timed out',
  killed: 'Stopped',
};

/** A duration as people read it: "4.2 s", "38 s", "3 min 5 s", "1 h 2 min". */
export function durationText(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${Number(s.toFixed(1))} s`;
  if (s < 60) return `${Math.round(s)} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ${Math.round(s - min * 60)} s`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** "3 files changed, +40 −2", or that it changed nothing. */
export function changesText(changes: WorkerResultCard['changes']): string {
  if (!changes || changes.files === 0) return 'No changes';
  return `${countText(changes.files)} file${changes.files === 1 ? '' : 's'} changed, +${countText(changes.additions)} \u2212${countText(changes.deletions)}`;
}

/** The card's element (it replaces the message body's text). */
export function resultCardEl(result: WorkerResultCard, post: Post, deferHighlight = false): HTMLElement {
  const facts = h(
    'div',
    { class: 'result-facts' },
    h('span', { class: 'result-worker', 'data-testid': 'result-worker' }, result.worker),
    h('span', { class: `result-state state-${result.state}`, 'data-testid': 'result-state' }, END_LABEL[result.state]),
    h('span', { class: 'result-duration', 'data-testid': 'result-duration' }, durationText(result.durationMs)),
    h('span', { class: 'result-changes', 'data-testid': 'result-changes' }, changesText(result.changes)),
  );
  const report = h('div', { class: 'result-report markdown', 'data-testid': 'result-report' });
  // A long report in frame-sized slices, as a long reply is; its deferred code is queued once it is all in.
  if (result.report.trim()) renderSliced(report, result.report, { deferHighlight }, deferHighlight ? () => highlightLater(report) : undefined);
  else report.append(h('p', { class: 'result-empty' }, 'The worker wrote no report.'));
  const actions = h('div', { class: 'result-actions' });
  if (result.changes && result.changes.files > 0) {
    const review = button('secondary', { 'data-testid': 'result-review' }, 'Review changes');
    review.addEventListener('click', () => post({ type: 'worker/open', name: result.worker, action: 'review' }));
    actions.append(review);
  }
  const transcript = button('secondary', { 'data-testid': 'result-transcript' }, 'Transcript');
  transcript.addEventListener('click', () => post({ type: 'worker/open', name: result.worker, action: 'transcript' }));
  actions.append(transcript);
  return h(
    'div',
    { class: 'result-card', 'data-testid': 'result-card', 'data-state': result.state },
    facts,
    result.reason ? h('p', { class: 'result-reason', 'data-testid': 'result-reason' }, result.reason) : null,
    report,
    actions,
  );
}
