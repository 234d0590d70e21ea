// The strip of background workers. Cards are real buttons (click, Enter and Space open the worker) and are kept
// across updates by name, so focus and hover survive the host's frequent refreshes. A control that an update hides
// gives the focus to its card; a card that goes, to the strip (or to the composer when the strip goes too). Escape in
// the strip goes back to the composer, as in the log.
import type { WorkerCard, WorkerState } from '../src/shared/protocol';
import { focusComposer, onPlainEscape } from './composerFocus';
import { h, setText } from './dom';
import { setMarkedText } from './hiddenChars';
import type { Post } from './messageView';

const STATE_LABEL: Record<WorkerState, string> = {
  running: 'Running',
  idle: 'Idle',
  done: 'Done',
  failed: 'Failed',
  timed_out: 'Timed out',
  killed: 'Stopped',
};

interface Card {
  el: HTMLButtonElement;
  state: HTMLElement;
  elapsed: HTMLElement;
  dir: HTMLElement;
  last: HTMLElement;
  /** Where it works (worktree branch) and whether the sandbox holds it. */
  where: HTMLElement;
  /** "N files changed, +a −b" with Review / Apply / Discard / Open folder, while changes wait for review. */
  changes: HTMLElement;
  changesText: HTMLElement;
  undo: HTMLElement;
  /** The files the worker touched, kept across rounds until its change set is settled. */
  touched: HTMLElement;
  /** What else to know of its changes: folders left out of them (repositories of their own), a worktree that is gone. */
  note: HTMLElement;
  /** The worker's own report of its last finished task, kept while it runs again. */
  summary: HTMLElement;
  /** Other pending workers that touched the same files. */
  overlap: HTMLElement;
  /** An Apply met conflicts: which files, and the two ways forward. */
  conflict: HTMLElement;
  conflictText: HTMLElement;
  /** The last verify of its change set: passed / failed in one line, its last lines one click away. */
  verify: HTMLDetailsElement;
  verifyLine: HTMLElement;
  verifyTail: HTMLElement;
  worker: WorkerCard;
}

const CHANGE_ACTIONS = [
  ['review', 'Review'],
  ['apply', 'Apply'],
  ['ask', 'Ask for changes\u2026'],
  ['branch', 'Keep as branch'],
  ['discard', 'Discard'],
  ['folder', 'Open folder'],
] as const;
/** What waits while the worker runs (its worktree is in use): Review and Open folder stay. */
const SETTLING_ACTIONS: ReadonlySet<string> = new Set(['apply', 'ask', 'branch', 'discard']);

const CONFLICT_ACTIONS = [
  ['resolve-worker', 'Resolve with worker'],
  ['resolve-editor', 'Resolve in editor\u2026'],
] as const;

/**
 * Settled workers (ended, nothing left to decide) the strip shows at most: the newest, to say how it ended; the rest
 * are in the Workers view, which opens when a worker starts, and each has its result card in the chat. Three cost
 * the conversation 96 px of a 480 px chat view (measured in Chromium: 105 px left it, against 201 with one).
 */
export const SETTLED_SHOWN = 1;

/** Ended with nothing left to decide: no changes waiting, no conflict, and it can run nothing more. */
function isSettled(worker: WorkerCard): boolean {
  return worker.state !== 'running' && worker.state !== 'idle' && !worker.changes?.files && !worker.changes?.note && !worker.conflicts?.length;
}

export class WorkerStrip {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly more: HTMLButtonElement;
  private cards = new Map<string, Card>();
  /** Every listed worker's state at the last update, shown or not: a worker finishing is announced either way. */
  private states = new Map<string, WorkerState>();
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly post: Post,
    /** Says something to screen readers (the panel's live region): a worker finishing. */
    private readonly announce: (text: string) => void = () => undefined,
  ) {
    this.list = h('div', { class: 'worker-list', role: 'list' });
    this.more = h('button', { type: 'button', class: 'link-button worker-more', 'data-testid': 'workers-more', hidden: true });
    this.more.addEventListener('click', () => this.post({ type: 'command/run', command: 'baton.showWorkers' }));
    this.el = h('section', { class: 'workers', 'aria-label': 'Background workers', 'data-testid': 'workers', tabindex: '-1' }, this.list, this.more);
    this.el.hidden = true;
    onPlainEscape(this.el, focusComposer);
  }

  update(workers: WorkerCard[]): void {
    const next = new Map<string, Card>();
    const states = new Map<string, WorkerState>();
    const items: HTMLElement[] = [];
    let settled = 0;
    for (const worker of workers) {
      states.set(worker.name, worker.state);
      if (this.states.get(worker.name) === 'running' && worker.state !== 'running') this.announce(this.finishedText(worker));
      // The host lists finished workers newest first: the older settled ones stay in the Workers view only.
      if (isSettled(worker) && ++settled > SETTLED_SHOWN) continue;
      const card = this.cards.get(worker.name) ?? this.createCard(worker);
      card.worker = worker;
      this.fill(card);
      next.set(worker.name, card);
      items.push(card.el.parentElement!);
    }
    const focusLost = [...this.cards.keys()].some((name) => !next.has(name) && this.cards.get(name)!.el.parentElement!.contains(document.activeElement));
    this.cards = next;
    this.states = states;
    // replaceChildren moves the kept nodes, and a moved node loses the focus: skip the DOM write when the order did
    // not change, and give the focus back when it did.
    const current = Array.from(this.list.children);
    const active = document.activeElement;
    if (current.length !== items.length || current.some((el, i) => el !== items[i])) this.list.replaceChildren(...items);
    if (active instanceof HTMLElement && active !== document.activeElement && this.list.contains(active)) active.focus({ preventScroll: true });
    const more = Math.max(0, settled - SETTLED_SHOWN);
    setText(this.more, more ? `${more} earlier worker${more === 1 ? '' : 's'} in the Workers view` : '');
    this.more.hidden = !more;
    this.el.hidden = workers.length === 0;
    // Not to the strip it was in once that is hidden: the focus would be on nothing shown, then on <body>.
    if (focusLost && (more || !this.el.hidden)) (more ? this.more : this.el).focus();
    else if (focusLost) focusComposer();
    this.syncTicker();
  }

  private finishedText(worker: WorkerCard): string {
    const c = worker.changes;
    const changes = c?.files ? `, ${c.files} file${c.files === 1 ? '' : 's'} changed, waiting for your review` : '';
    return `${worker.name} finished: ${STATE_LABEL[worker.state] ?? worker.state}${changes}`;
  }

  dispose(): void {
    clearInterval(this.ticker);
  }

  private createCard(worker: WorkerCard): Card {
    const state = h('span', { class: 'worker-state' });
    const elapsed = h('span', { class: 'worker-elapsed', 'data-testid': 'worker-elapsed' });
    const dir = h('span', { class: 'worker-dir' });
    const last = h('span', { class: 'worker-last' });
    const el = h(
      'button',
      { type: 'button', class: 'worker-card', 'data-testid': 'worker-card' },
      h(
        'span',
        { class: 'worker-top' },
        h('span', { class: 'worker-dot', 'aria-hidden': 'true' }),
        h('span', { class: 'worker-name' }, worker.name),
        state,
        dir,
        elapsed,
      ),
      last,
    );
    el.addEventListener('click', () => this.post({ type: 'worker/open', name: el.dataset.name ?? worker.name }));
    const where = h('div', { class: 'worker-where', 'data-testid': 'worker-where' });
    const summary = h('div', { class: 'worker-summary', 'data-testid': 'worker-summary' });
    const touched = h('div', { class: 'worker-touched', 'data-testid': 'worker-touched' });
    const note = h('div', { class: 'worker-changes-note', 'data-testid': 'worker-changes-note' });
    const overlap = h('div', { class: 'worker-overlap', 'data-testid': 'worker-overlap', role: 'status' });
    const conflictText = h('span', { 'data-testid': 'worker-conflicts' });
    const conflict = h(
      'div',
      { class: 'worker-conflict' },
      conflictText,
      ...CONFLICT_ACTIONS.map(([action, label]) => {
        const b = h('button', { type: 'button', class: 'link-button', 'data-testid': `worker-${action}` }, label);
        b.addEventListener('click', () => this.post({ type: 'worker/open', name: el.dataset.name ?? worker.name, action }));
        return b;
      }),
    );
    const changesText = h('span', { class: 'worker-changes-text', 'data-testid': 'worker-changes' });
    // Buttons sit beside the card, not in it: a button inside a button is not valid HTML.
    const changes = h(
      'div',
      { class: 'worker-changes' },
      changesText,
      ...CHANGE_ACTIONS.map(([action, label]) => {
        const b = h('button', { type: 'button', class: 'link-button', 'data-testid': `worker-${action}` }, label);
        if (SETTLING_ACTIONS.has(action)) b.dataset.settles = '';
        b.addEventListener('click', () => this.post({ type: 'worker/open', name: el.dataset.name ?? worker.name, action }));
        return b;
      }),
    );
    // Its Apply taken back (applyUndo.ts): beside the card, as the change buttons are.
    const undoButton = h('button', { type: 'button', class: 'link-button', 'data-testid': 'worker-undo' }, 'Undo Apply');
    undoButton.addEventListener('click', () => this.post({ type: 'worker/open', name: el.dataset.name ?? worker.name, action: 'undo' }));
    const undo = h('div', { class: 'worker-changes' }, undoButton);
    const verifyLine = h('summary', { 'data-testid': 'worker-verify' });
    const verifyTail = h('pre', { class: 'worker-verify-tail', 'data-testid': 'worker-verify-tail' });
    const verify = h('details', { class: 'worker-verify' }, verifyLine, verifyTail) as HTMLDetailsElement;
    h('div', { role: 'listitem', class: 'worker-item' }, el, where, summary, touched, note, overlap, verify, conflict, changes, undo);
    return {
      el,
      state,
      elapsed,
      dir,
      last,
      where,
      changes,
      changesText,
      undo,
      touched,
      note,
      summary,
      overlap,
      conflict,
      conflictText,
      verify,
      verifyLine,
      verifyTail,
      worker,
    };
  }

  private fill(card: Card): void {
    const { el, worker } = card;
    el.dataset.name = worker.name;
    el.dataset.state = worker.state;
    // A settled card hides its report (the chat's result card has it): it is the tooltip instead.
    el.title = isSettled(worker) && worker.summary ? `Open ${worker.name}: ${worker.summary}` : `Open ${worker.name}`;
    const verifying = worker.verify?.state === 'running' ? 'verifying' : undefined;
    setText(
      card.state,
      (worker.activity ?? verifying) && worker.state === 'running' ? (worker.activity ?? verifying)! : (STATE_LABEL[worker.state] ?? worker.state),
    );
    // A worktree lives in Baton's storage: the card names the user's folder and the branch instead.
    const place = worker.isolation?.kind === 'worktree' ? worker.isolation.sourceDir : worker.workingDir;
    // The folder's name: at a 300 px side bar a whole path showed only its start, the part every worker shares.
    setText(card.dir, folderName(place));
    card.dir.title = place;
    // The last line is what a running worker is doing; once it has ended, its report (the summary below) says it,
    // and the report's last line shown again above it read as the same text twice.
    const lastLine = worker.state === 'running' || !worker.summary ? worker.lastLine : '';
    setMarkedText(card.last, lastLine);
    card.last.hidden = !lastLine;
    const iso = worker.outcome
      ? worker.outcome.text
      : worker.isolation?.kind === 'worktree'
        ? worker.isolation.copy
          ? 'a copy of the folder (it has no git)'
          : `worktree on ${worker.isolation.branch}${worker.isolation.uncommittedLeftOut ? ' (your uncommitted changes are not in it)' : ''}`
        : worker.isolation?.readOnly
          ? 'reads only'
          : '';
    const box = worker.sandbox;
    const unsandboxed = box && box.state !== 'applied' && box.state !== 'engaged' ? `unsandboxed${box.reason ? `: ${box.reason}` : ''}` : '';
    const held = box && (box.state === 'applied' || box.state === 'engaged');
    const network = held ? (box.network?.line ?? box.reason ?? '') : '';
    // The network matters while the worker can still run a command; the card says it in a few words, in full on hover.
    const live = worker.state === 'running' || worker.state === 'idle';
    const brief = held && live ? (box.network?.brief ?? box.reason ?? '') : '';
    setText(card.where, [iso, unsandboxed, brief].filter(Boolean).join(' · '));
    card.where.title = [iso, unsandboxed, network].filter(Boolean).join('\n');
    card.where.hidden = !card.where.textContent;
    card.where.dataset.sandbox = box?.state ?? '';
    card.where.dataset.outcome = worker.outcome?.kind ?? '';
    setText(card.summary, worker.summary ?? '');
    card.summary.title = worker.summary ?? '';
    card.summary.hidden = !worker.summary;
    const c = worker.changes;
    const paths = c?.paths ?? [];
    setText(card.touched, paths.length ? `${paths.join(', ')}${c && c.files > paths.length ? `, +${c.files - paths.length} more` : ''}` : '');
    card.touched.title = paths.join('\n');
    card.touched.hidden = !paths.length;
    setText(card.note, c?.note ?? '');
    card.note.hidden = !c?.note;
    // Whatever of the card's own an update hides (change buttons once applied or discarded or at work again, Undo,
    // the conflict row, the verify line) gives the focus it had to the card rather than to nowhere.
    const active = document.activeElement;
    const focused = active && active !== el && el.parentElement!.contains(active) ? active : undefined;
    const running = worker.state === 'running';
    const settling = card.changes.querySelectorAll<HTMLElement>('[data-settles]');
    // Nothing but folders left out still leaves a worktree to discard (or to ask the worker about).
    const pending = !!(c?.files || c?.note);
    card.changes.hidden = !pending;
    card.undo.hidden = !worker.outcome?.undoable;
    // A worker asked for more works in its worktree: what would settle it (Apply, Discard...) waits for it to end.
    // A copy of a folder without git has no branch of the user's to keep its changes on; a worker in place (no
    // isolation, a folder too big to copy) has no worktree to commit from: its changes are already the user's files.
    const noBranch = worker.isolation?.kind === 'in-place' || (worker.isolation?.kind === 'worktree' && !!worker.isolation.copy);
    for (const b of settling) b.hidden = running || (noBranch && b.dataset.testid === 'worker-branch');
    const overlaps = worker.overlaps ?? [];
    setText(card.overlap, overlaps.length ? `Overlaps with ${overlaps.map((o) => `${o.worker} (${o.paths.join(', ')})`).join('; ')}` : '');
    card.overlap.hidden = !overlaps.length;
    const v = worker.outcome ? undefined : worker.verify;
    setText(card.verifyLine, v?.line ?? '');
    setText(card.verifyTail, v?.tail ?? '');
    card.verify.dataset.state = v?.state ?? '';
    card.verify.hidden = !v;
    card.verifyTail.hidden = !v?.tail;
    const conflicts = worker.conflicts ?? [];
    setText(card.conflictText, conflicts.length ? `Conflicts with your tree: ${conflicts.join(', ')}` : '');
    card.conflict.hidden = !conflicts.length || worker.state === 'running';
    // Ended with nothing left to decide: its report goes to the tooltip (the chat's result card has it whole).
    card.el.parentElement!.toggleAttribute('data-settled', isSettled(worker));
    if (focused?.closest('[hidden]')) el.focus();
    if (c?.files) setText(card.changesText, `${c.files} file${c.files === 1 ? '' : 's'} changed, +${c.additions} \u2212${c.deletions}`);
    else if (pending) setText(card.changesText, 'No file to apply');
    this.tick(card);
  }

  private tick(card: Card): void {
    const running = card.worker.state === 'running';
    card.elapsed.hidden = !running;
    if (running) setText(card.elapsed, formatElapsed(Date.now() - card.worker.startedAt));
  }

  /** One timer for all cards, and only while something runs. */
  private syncTicker(): void {
    const anyRunning = [...this.cards.values()].some((c) => c.worker.state === 'running');
    if (anyRunning && !this.ticker) this.ticker = setInterval(() => this.cards.forEach((c) => this.tick(c)), 1000);
    if (!anyRunning && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }
}

export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const hours = Math.floor(total / 3600);
  if (hours) return `${hours}h ${String(m).padStart(2, '0')}m`;
  if (m) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/** The last segment of a folder's path (either separator), or the path itself when it has none. */
export function folderName(dir: string): string {
  return dir.split(/[\\/]/).filter(Boolean).pop() ?? dir;
}
