// Worker results on their way to the orchestrator.
// Invariant: a result is written to the store BEFORE it is handed over, and marked delivered only
// after the orchestrator accepted it (its turn started): a window closed in between loses nothing,
// and the next start delivers it again.
import type { Origin } from '../orchestrator/events';
import type { BatonStore, InboxRow, WorkerRow } from '../store/types';
import type { Logger } from '../util/logger';
import type { WorkerResultCard } from '../../shared/protocol';
import { parseSqliteTimestamp } from '../store/rowSchemas';
import { loggedStoreWrite } from '../util/loggedStoreWrite';
import { recordEnding } from './workerEnding';
import { formatResult, resultCard, type TaskOutcome } from './workerMessages';
import { otherLiveOwner, ownerJson, type WorkerOwner } from './workerOwner';
import { parseReplyTo, type ReplyTo } from './workerTypes';

/**
 * State key of the window handing result <id> over, until the orchestrator takes it (its turn starts, which may be a
 * whole answer later): another window that opens meanwhile must not deliver it too (the model answered the same report
 * twice, and could act on it twice). One per result on its way; a key whose result is delivered, or whose window is
 * gone, is dropped at the next deliverPending.
 */
const CLAIM_PREFIX = 'inbox-claim:';

/** Hands a result to the orchestrator: `text` is what the model reads, `result` what people read (the panel's card). */
export type Deliver = (text: string, origin: Origin, inboxId?: number, result?: WorkerResultCard) => Promise<void> | void;

/** The origin of a stored result (its channel and conversation); a row from an older version replies to the panel. */
export function originOf(worker: string, stored: string): Origin {
  const { channel, conversation } = parseReplyTo(stored);
  return { channel: 'background', worker, replyTo: channel, ...(conversation ? { conversation } : {}) };
}

export class WorkerInbox {
  private readonly delivering = new Set<number>();
  private cleaned = false;

  constructor(
    private readonly store: BatonStore,
    private readonly deliver: Deliver,
    private readonly logger: Logger,
    /** This window, named on the results it hands over (CLAIM_PREFIX). */
    private readonly owner?: WorkerOwner,
  ) {}

  /** Stores a result; undefined when the store failed (logged), and then it is delivered unrecorded. */
  record(worker: string, replyTo: ReplyTo, kind: InboxRow['kind'], content: string, result?: WorkerResultCard): number | undefined {
    try {
      const id = this.store.addInbox({ worker_name: worker, origin: replyTo, kind, content, ...(result ? { result: JSON.stringify(result) } : {}) });
      // Claimed for the deliverOne that follows (after an await): a deliverPending in between must not send it too.
      this.delivering.add(id);
      this.claim(id);
      return id;
    } catch (err) {
      this.logger.error('Workers: could not store the result', err);
      return undefined;
    }
  }

  async deliverOne(inboxId: number | undefined, text: string, origin: Origin, result?: WorkerResultCard): Promise<boolean> {
    if (inboxId !== undefined) {
      this.delivering.add(inboxId);
      this.claim(inboxId);
    }
    try {
      await this.deliver(text, origin, inboxId, result);
      if (inboxId !== undefined) this.safely(() => this.store.markInboxDelivered(inboxId), 'mark a result delivered');
      return true;
    } catch (err) {
      this.logger.error(`The result of worker '${origin.worker}' could not be delivered now; it will be at the next start`, err);
      return false;
    } finally {
      if (inboxId !== undefined) {
        this.delivering.delete(inboxId);
        this.safely(() => this.store.deleteState(CLAIM_PREFIX + inboxId), 'release a result');
      }
    }
  }

  /**
   * Removes worker rows a previous window left (their sessions went with it) and returns them; `keep` names the rows
   * still run, here or by another live window (workerOwner.ts). A task that was running then did not finish: the
   * orchestrator is told so through the inbox.
   */
  cleanStale(keep: (row: WorkerRow) => boolean): WorkerRow[] {
    this.cleaned = true;
    const stale = this.store.listWorkers().filter((r) => !keep(r));
    for (const r of stale) {
      this.safely(() => this.store.deleteWorker(r.name), 'remove a stale worker row');
      if (r.status !== 'running') continue;
      const outcome: TaskOutcome = {
        kind: 'failed',
        error: `its task was interrupted when VS Code closed or reloaded (directory ${r.working_dir}, session ${r.copilot_session_id ?? 'unknown'}). It did not finish; start it again if it is still needed.`,
        output: r.last_output ?? '',
      };
      const content = formatResult(r.name, outcome);
      const ran = (parseSqliteTimestamp(r.updated_at)?.getTime() ?? 0) - (parseSqliteTimestamp(r.created_at)?.getTime() ?? 0);
      const result = JSON.stringify(resultCard(r.name, outcome, ran));
      this.safely(() => this.store.addInbox({ worker_name: r.name, origin: r.origin, kind: 'failed', content, result }), 'record an interrupted worker');
      const ended = parseSqliteTimestamp(r.updated_at)?.getTime() ?? 0;
      this.safely(
        () => recordEnding(this.store, r.name, { state: 'failed', startedAt: ended - Math.max(0, ran), finishedAt: ended }),
        'record how an interrupted worker ended',
      );
    }
    if (stale.length)
      this.logger.warn(`Cleaned ${stale.length} worker(s) left by a previous window: ${stale.map((r) => `'${r.name}' (${r.status})`).join(', ')}`);
    return stale;
  }

  /** Re-sends results the orchestrator has not accepted yet (e.g. the window closed first). Returns how many went out. */
  async deliverPending(keep: (row: WorkerRow) => boolean): Promise<number> {
    if (!this.cleaned) this.cleanStale(keep);
    const undelivered = this.store.undeliveredInbox();
    // The results this window or another live one is handing over; the claims of results delivered since, or of a
    // window gone, go.
    const waiting = new Set(undelivered.map((row) => row.id));
    const held = new Set(this.delivering);
    for (const key of this.store.stateKeys(CLAIM_PREFIX)) {
      const id = Number(key.slice(CLAIM_PREFIX.length));
      const owner = this.store.getState(key);
      if (waiting.has(id) && owner !== undefined && (held.has(id) || otherLiveOwner({ owner }, this.owner))) held.add(id);
      else this.safely(() => this.store.deleteState(key), 'drop a stale result claim');
    }
    // Each deliver call enqueues synchronously, so starting them in a loop keeps the rows' order.
    const sends = undelivered
      .filter((row) => !held.has(row.id))
      .map((row) => this.deliverOne(row.id, row.content, originOf(row.worker_name, row.origin), cardOf(row)));
    return (await Promise.all(sends)).filter(Boolean).length;
  }

  private claim(id: number): void {
    const owner = ownerJson(this.owner);
    if (owner) this.safely(() => this.store.setState(CLAIM_PREFIX + id, owner), 'claim a result');
  }

  private safely(fn: () => unknown, what: string): void {
    loggedStoreWrite(this.logger, fn, what);
  }
}

/** The stored result card; undefined for a row from before schema 4 or one that does not parse (the text still goes). */
function cardOf(row: InboxRow): WorkerResultCard | undefined {
  if (!row.result) return undefined;
  try {
    const card = JSON.parse(row.result) as Partial<WorkerResultCard>;
    return typeof card.worker === 'string' && typeof card.report === 'string' && typeof card.state === 'string' ? (card as WorkerResultCard) : undefined;
  } catch {
    return undefined;
  }
}
