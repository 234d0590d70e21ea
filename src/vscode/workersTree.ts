// The Workers view (`baton.workers`): every worker with its state, directory and elapsed time, live;
// its transcript as a read-only document; follow-ups and kills from the tree or the palette.
import * as vscode from 'vscode';
import { askUntilTaken } from './askUntilTaken';
import { provideCommand } from './deferredCommands';
import { placeLabel } from './placeLabel';
import { workerContextValue } from './workerContextValue';
import { followUpRefusal } from '../core/workers/followUpRefusal';
import { refusedFollowUp } from './refusedFollowUp';
import type { WorkerState } from '../shared/protocol';
import type { WorkerInfo, WorkerPool } from '../core/workers/workerPool';
import { durationText } from '../shared/workerResultText';

export const TRANSCRIPT_SCHEME = 'baton-transcript';

const ICONS: Record<WorkerState, vscode.ThemeIcon> = {
  running: new vscode.ThemeIcon('loading~spin'),
  idle: new vscode.ThemeIcon('circle-outline'),
  done: new vscode.ThemeIcon('check', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  timed_out: new vscode.ThemeIcon('watch', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  killed: new vscode.ThemeIcon('circle-slash'),
};

/** The transcript document of a worker: `baton-transcript:/<name>.log` (read-only: a content provider backs it). */
export function transcriptUri(name: string): vscode.Uri {
  return vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/${name}.log` });
}

function nameOfUri(uri: vscode.Uri): string {
  return uri.path.replace(/^\//, '').replace(/\.log$/, '');
}

/**
 * `usage` describes a worker's model usage today, for its tooltip. The view starts collapsed (the chat keeps the side
 * bar's height) and opens, without taking the focus, when a new worker starts while the chat is in view, or the next
 * time the chat comes into view when the worker started while it was hidden (from the explorer's "Start a Worker Here…").
 */
export function registerWorkersTree(
  pool: WorkerPool,
  usage?: (worker: string) => string,
  chat?: { isVisible(): boolean; onDidShow: vscode.Event<void> },
): vscode.Disposable {
  const disposables: vscode.Disposable[] = [];
  const changed = new vscode.EventEmitter<void>();
  const transcriptChanged = new vscode.EventEmitter<vscode.Uri>();
  disposables.push(changed, transcriptChanged);

  const provider: vscode.TreeDataProvider<WorkerInfo> = {
    onDidChangeTreeData: changed.event,
    getChildren: (element) => (element ? [] : withPendingChanges(pool)),
    getTreeItem: (w) => workerItem(w, Date.now(), usage),
    // A flat list (reveal needs a parent lookup).
    getParent: () => undefined,
  };
  const view = vscode.window.createTreeView('baton.workers', { treeDataProvider: provider });
  disposables.push(view);

  const transcripts: vscode.TextDocumentContentProvider = {
    onDidChange: transcriptChanged.event,
    provideTextDocumentContent: (uri) => {
      try {
        return pool.transcript(nameOfUri(uri));
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    },
  };
  disposables.push(vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, transcripts));

  // Elapsed times tick every second, but only while something runs.
  let ticker: NodeJS.Timeout | undefined;
  const refresh = (workers: WorkerInfo[]): void => {
    view.message = workers.length ? undefined : 'No workers yet. Ask Baton to do something in a folder and a worker appears here.';
    const running = workers.some((w) => w.state === 'running');
    if (running && !ticker) ticker = setInterval(() => changed.fire(), 1000);
    if (!running && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
    changed.fire();
    // Open transcripts follow the worker (the pool already throttles output to 4 events a second).
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === TRANSCRIPT_SCHEME && !doc.isClosed) transcriptChanged.fire(doc.uri);
    }
  };
  // Names seen so far: a name not among them is a new worker, which opens the view.
  const seen = new Set(pool.list().map((w) => w.name));
  let unseen: string | undefined;
  const open = (worker: WorkerInfo): void => {
    if (view.visible) return;
    // A view revealed for the first time lays out its container before its tree exists, and the tree then keeps a
    // height of 0: the pane opened blank until some later layout (measured in code-server: ~2 s, when a toast came).
    // Setting the message, even to what it is, lays the tree out again at the pane's height (VS Code's TreeView).
    void view.reveal(worker, { focus: false, select: false }).then(
      () => {
        const message = view.message;
        view.message = message;
      },
      () => undefined,
    );
  };
  const openOnNew = (workers: WorkerInfo[]): void => {
    const fresh = workers.find((w) => !seen.has(w.name));
    for (const w of workers) seen.add(w.name);
    if (!fresh || !chat) return;
    if (chat.isVisible()) open(fresh);
    else unseen = fresh.name;
  };
  if (chat) {
    disposables.push(
      chat.onDidShow(() => {
        const worker = unseen === undefined ? undefined : pool.list().find((w) => w.name === unseen);
        unseen = undefined;
        if (worker) open(worker);
      }),
    );
  }
  const unsubscribe = pool.onDidChange((workers) => {
    refresh(workers);
    openOnNew(workers);
  });
  disposables.push({ dispose: unsubscribe }, { dispose: () => ticker && clearInterval(ticker) });
  refresh(pool.list());

  disposables.push(
    provideCommand('baton.worker.openTranscript', async (arg?: WorkerInfo | string) => {
      const name = nameOf(arg) ?? (await pickWorker(pool.list(), 'Open the transcript of which worker?'));
      if (!name) return;
      const opened = await vscode.workspace.openTextDocument(transcriptUri(name));
      // 'log' colours timestamps and errors; without that language the plain text is fine too.
      const doc = await Promise.resolve(vscode.languages.setTextDocumentLanguage(opened, 'log')).catch(() => opened);
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
    provideCommand('baton.worker.sendFollowUp', async (arg?: WorkerInfo | string) => {
      const name =
        nameOf(arg) ??
        (await pickWorker(
          pool.list().filter((w) => !followUpRefusal(w)),
          'Send a task to which worker?',
        ));
      if (!name) return;
      if (refusedFollowUp(pool, name)) return;
      await askUntilTaken({
        box: {
          title: `Send a task to worker '${name}'`,
          prompt: 'The worker works on it in the background; its result comes back to the chat.',
          placeHolder: 'e.g. Now add tests for the fix',
          validateInput: (v) => (v.trim() ? undefined : 'Type the task.'),
        },
        take: async (task) => {
          await pool.send(name, task, 'command');
          void vscode.window.setStatusBarMessage(`Baton: task sent to worker '${name}'`, 4000);
        },
        refused: (err) => `Baton: ${message(err)}`,
      });
    }),
    provideCommand('baton.killWorker', async (arg?: WorkerInfo | string) => {
      const active = pool.list().filter((w) => w.state === 'running' || w.state === 'idle');
      const name = nameOf(arg) ?? (await pickWorker(active, active.length ? 'Stop which worker?' : undefined));
      if (!name) {
        if (!active.length) void vscode.window.showInformationMessage('Baton: no worker is running.');
        return;
      }
      // One click on the row's icon stopped it for good (a killed worker cannot be continued): asked first.
      const running = pool.list().find((w) => w.name === name)?.state === 'running';
      const choice = await vscode.window.showWarningMessage(
        `Stop worker '${name}'?`,
        {
          modal: true,
          detail: `${running ? 'Its task ends now, and it' : 'It'} cannot be continued after. What it changed so far stays for review, and its transcript stays.`,
        },
        'Stop Worker',
      );
      if (choice !== 'Stop Worker') return;
      try {
        void vscode.window.setStatusBarMessage(await pool.kill(name, 'user'), 4000);
      } catch (err) {
        void vscode.window.showErrorMessage(`Baton: ${message(err)}`);
      }
    }),
  );

  return vscode.Disposable.from(...disposables);
}

function workerItem(w: WorkerInfo, now: number, usage?: (worker: string) => string): vscode.TreeItem {
  const item = new vscode.TreeItem(w.name, vscode.TreeItemCollapsibleState.None);
  item.id = `worker:${w.name}`;
  item.iconPath = ICONS[w.state];
  const changes =
    w.startedAt && w.changes?.files ? ` · ${w.changes.files} file${w.changes.files === 1 ? '' : 's'} +${w.changes.additions} −${w.changes.deletions}` : '';
  // The same place the card names: the user's folder and the branch, not the worktree in Baton's storage.
  const place =
    w.isolation?.kind === 'worktree' ? `${placeLabel(w.isolation.sourceDir)} (${w.isolation.copy ? 'a copy' : w.isolation.branch})` : placeLabel(w.workingDir);
  const activity = w.activity ?? (w.verify?.state === 'running' ? 'verifying' : undefined);
  const verdict = !w.outcome && w.verify && w.verify.state !== 'running' ? ` · verify ${w.verify.state === 'not-run' ? 'not run' : w.verify.state}` : '';
  const state = activity && w.state === 'running' ? ` · ${activity}` : w.outcome ? ` · ${w.outcome.text}` : verdict;
  item.description = `${place} · ${elapsedText(w, now)}${state}${changes}`;
  item.contextValue = workerContextValue(w);
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendMarkdown(`**${w.name}** — ${w.state.replace('_', ' ')}  \n`);
  tip.appendText(w.isolation?.kind === 'worktree' ? w.isolation.sourceDir : w.workingDir);
  if (w.changes?.paths?.length) {
    tip.appendMarkdown('\n\nTouched: ');
    tip.appendText(w.changes.paths.join(', '));
  }
  if (w.changes?.note) {
    tip.appendMarkdown('\n\n');
    tip.appendText(w.changes.note);
  }
  if (w.overlaps?.length) {
    tip.appendMarkdown('\n\n$(warning) Overlaps with ');
    tip.appendText(w.overlaps.map((o) => `${o.worker} (${o.paths.join(', ')})`).join('; '));
  }
  if (w.lastLine) {
    tip.appendMarkdown('\n\n');
    tip.appendText(w.lastLine);
  }
  if (w.verify && !w.outcome) {
    tip.appendMarkdown(`\n\n${w.verify.state === 'passed' ? '$(pass)' : w.verify.state === 'running' ? '$(sync)' : '$(warning)'} `);
    tip.appendText(w.verify.line);
  }
  if (w.source !== 'created') tip.appendMarkdown(`\n\n_${w.source} machine session_`);
  if (usage) tip.appendMarkdown(`\n\n${usage(w.name)}`);
  if (w.isolation?.kind === 'worktree' && w.isolation.copy) {
    tip.appendMarkdown("\n\nA copy of the folder in Baton's storage (the folder has no git): your files change when you apply");
  } else if (w.isolation?.kind === 'worktree') {
    tip.appendMarkdown(`\n\nWorktree on \`${w.isolation.branch}\` from \`${w.isolation.baseCommit.slice(0, 8)}\``);
    if (w.isolation.uncommittedLeftOut) tip.appendMarkdown(' — your uncommitted changes are not in it');
  } else if (w.isolation?.readOnly) tip.appendMarkdown('\n\nReads only: it cannot change a file in this folder');
  if (w.sandbox && w.sandbox.state !== 'applied' && w.sandbox.state !== 'engaged') {
    tip.appendMarkdown(`\n\n$(warning) Unsandboxed${w.sandbox.reason ? `: ${w.sandbox.reason}` : ''}`);
  }
  if (w.sandbox?.network) {
    tip.appendMarkdown('\n\n');
    tip.appendText(
      `${w.sandbox.network.line[0]!.toUpperCase()}${w.sandbox.network.line.slice(1)}${w.sandbox.network.verified ? ' (as the runtime reports)' : ''}`,
    );
  }
  item.tooltip = tip;
  item.command = { command: 'baton.worker.openTranscript', title: 'Open Transcript', arguments: [w.name] };
  return item;
}

/**
 * The pool's workers, plus the change sets still waiting for review whose worker is no longer
 * listed (after a reload or restart): they stay reviewable until applied or discarded.
 */
function withPendingChanges(pool: WorkerPool): WorkerInfo[] {
  const workers = pool.list();
  const listed = new Set(workers.map((w) => w.name));
  const waiting = (pool.changes?.list() ?? [])
    .filter((p) => !listed.has(p.worker))
    .map((p): WorkerInfo => ({
      name: p.worker,
      workingDir: p.dir,
      state: 'done',
      startedAt: 0,
      createdAt: 0,
      lastLine: 'changes waiting for review',
      source: 'created',
      // The count is not known without asking git; a non-zero marker keeps Review/Apply/Discard on the item.
      changes: { files: 1, additions: 0, deletions: 0 },
      ...(p.branch ? { isolation: { kind: 'worktree' as const, branch: p.branch, baseCommit: '', sourceDir: p.dir, uncommittedLeftOut: false } } : {}),
    }));
  return [...workers, ...waiting];
}

function elapsedText(w: WorkerInfo, now: number): string {
  if (!w.startedAt) return 'changes waiting for review';
  if (w.state === 'idle') return 'idle';
  // A running worker's clock ticks each second; a finished one reads as its result card does ("0.9 s", not "0s").
  return w.finishedAt ? durationText(w.finishedAt - w.startedAt) : clock(now - w.startedAt);
}

/** 42s, 3m 07s, 1h 02m. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

function nameOf(arg: WorkerInfo | string | undefined): string | undefined {
  if (typeof arg === 'string') return arg || undefined;
  return arg && typeof arg === 'object' && typeof arg.name === 'string' ? arg.name : undefined;
}

async function pickWorker(workers: WorkerInfo[], title: string | undefined): Promise<string | undefined> {
  if (!workers.length || !title) return undefined;
  const picked = await vscode.window.showQuickPick(
    workers.map((w) => ({ label: w.name, description: `${w.state.replace('_', ' ')} · ${placeLabel(w.workingDir)}`, detail: w.lastLine || undefined })),
    { title, placeHolder: 'Worker' },
  );
  return picked?.label;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
