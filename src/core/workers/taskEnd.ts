// What happens when a worker's task ends, in order: its result is stored (the inbox) before anything else, its row
// goes, the worker is retired (session disconnected), the result is handed to the orchestrator (not awaited: that
// may wait for a whole turn, and a kill must not), and its session is deleted or kept (sessionLifecycle.ts).
import type { WorkerState } from '../../shared/protocol';
import type { BatonStore, InboxRow } from '../store/types';
import type { Logger } from '../util/logger';
import type { SessionLifecycle } from './sessionLifecycle';
import type { ChangeWatch } from '../changes/changeWatch';
import type { WorkerChanges } from '../changes/workerChanges';
import { originOf, type WorkerInbox } from './workerInbox';
import { formatResult, pastTense, resultCard, seconds, type TaskOutcome } from './workerMessages';
import type { Worker } from './workerTypes';
import { loggedStoreWrite } from '../util/loggedStoreWrite';
import { recordEnding } from './workerEnding';

export interface TaskEndDeps {
  disposed: () => boolean;
  changes: WorkerChanges | undefined;
  /** The change note of the completion (follow-up verdict, change line, overlaps) and the card's summary. */
  watch: ChangeWatch | undefined;
  inbox: WorkerInbox;
  store: BatonStore;
  logger: Logger;
  now: () => number;
  retire: (state: WorkerState) => Promise<void>;
  lifecycle: SessionLifecycle;
}

export async function endTask(w: Worker, outcome: TaskOutcome, deps: TaskEndDeps): Promise<void> {
  const state: WorkerState = resultCard(w.name, outcome, 0).state;
  const shuttingDown = deps.disposed() || (outcome.kind === 'killed' && outcome.by === 'shutdown');
  // The orchestrator asked for the kill itself: it knows; a user's kill it must hear about.
  const report = !shuttingDown && !(outcome.kind === 'killed' && outcome.by === 'tool');
  const text = formatResult(w.name, outcome) + ((await deps.watch?.completionNote(w, outcome.kind, outcome.output)) ?? '');
  // resultNote above counted the pending changes (w.changes) the card shows.
  const card = resultCard(w.name, outcome, deps.now() - w.startedAt, w.changes);
  const kind: InboxRow['kind'] = outcome.kind;
  const inboxId = report ? deps.inbox.record(w.name, w.replyTo, kind, text, card) : undefined;
  // On shutdown the row stays 'running', so the next start reports the task as interrupted.
  if (!shuttingDown) {
    try {
      deps.store.deleteWorker(w.name);
    } catch (err) {
      deps.logger.error('Workers: could not remove the worker row', err);
    }
  }
  const log = `Worker '${w.name}' ${pastTense(state)} after ${seconds(deps.now() - w.startedAt)}`;
  if (state === 'done') deps.logger.info(log);
  else deps.logger.warn(outcome.kind === 'failed' ? `${log}: ${outcome.error}` : log);
  await deps.retire(state);
  // Its card as it ended, for a window that lists it again while its changes wait (workerEnding.ts).
  if (!shuttingDown && deps.changes?.has(w.name)) {
    const ending = { state, startedAt: w.startedAt, finishedAt: w.finishedAt ?? deps.now(), ...(w.summary ? { summary: w.summary } : {}) };
    loggedStoreWrite(deps.logger, () => recordEnding(deps.store, w.name, ending), 'record how the task ended');
  }
  // Closing since it ended (a reload while its verify ran): the result waits in the inbox for the next start, which
  // hands it over; handed to a conversation being closed, it was marked delivered and lost.
  if (report && !deps.disposed()) void deps.inbox.deliverOne(inboxId, text, originOf(w.name, w.replyTo), card);
  if (!shuttingDown && !deps.disposed()) await deps.lifecycle.taskEnded(w);
  // Ended as the window closes: its session is kept for the next start all the same (before, a new one was opened).
  else if (!shuttingDown) deps.lifecycle.keepAtClose(w);
}
