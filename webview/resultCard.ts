// A finished worker as people read it: its name, how it ended, how long it ran, what it changed, and its report as
// markdown. The message's `content` is the wrapper the model was given; the panel never shows it when a card exists.
import type { WorkerResultCard } from '../src/shared/protocol';
import { changesText, durationText, END_LABEL } from '../src/shared/workerResultText';
import { button, h } from './dom';
import { highlightLater } from './deferredHighlight';
import type { Post } from './messageView';
import { renderSliced } from './slicedRender';
import { sentence, spokenText } from './spokenText';

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

/** What a screen reader is told of a card: "Worker alpha finished in 1 s: 2 files changed, +3 −1. Fixed the login bug". */
export function resultCardSpeech(card: Element): string {
  const field = (id: string) => card.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() ?? '';
  const state = card.getAttribute('data-state');
  const ended = `${field('result-state').toLowerCase()} ${state === 'done' || state === 'failed' ? 'in' : 'after'} ${field('result-duration')}`;
  const report = card.querySelector('[data-testid="result-report"]');
  const reason = field('result-reason');
  return [`Worker ${field('result-worker')} ${ended}: ${sentence(field('result-changes'))}`, reason && sentence(reason), report ? spokenText(report) : '']
    .filter(Boolean)
    .join(' ');
}
