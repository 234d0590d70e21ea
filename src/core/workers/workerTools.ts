// The orchestrator's tools for workers. Arguments come from the model, so they are validated here
// (the SDK passes them through unchecked) and every failure goes back to the model as a clear
// message it can act on, never as a crash of the turn.
import { z } from 'zod';
import { type BatonTool, type ToolJournal, toolMaker } from '../copilot/batonTool';
import { seconds } from './workerMessages';
import { WorkerError } from './workerTypes';
import type { MachineSession, ReplyTo, WorkerInfo, WorkerPool } from './workerPool';

export interface WorkerToolOptions {
  /** The channel of the orchestrator turn calling the tool, so the worker's result goes back there (default 'panel'). */
  replyTo?: () => ReplyTo | undefined;
  now?: () => number;
  /** The orchestrator's tool journal: a retried turn gets the first result instead of a second worker. */
  journal?: ToolJournal;
  /** Where a worker goes when the model gives no working_dir: the workspace folder of the user's active file. */
  defaultWorkingDir?: () => string | undefined;
  /** The calling turn's signal: a question the start raises (may it work in the folder itself?) goes when it stops. */
  signal?: () => AbortSignal | undefined;
}

const workerName = z.string().min(1).max(48).describe('Short worker name: letters, digits, ".", "_" or "-", e.g. "auth-fix".');

export function createWorkerTools(pool: WorkerPool, opts: WorkerToolOptions = {}): BatonTool[] {
  const replyTo = (): ReplyTo => opts.replyTo?.() ?? 'panel';
  const now = opts.now ?? Date.now;
  const tool = toolMaker(opts.journal);

  return [
    tool(
      'create_worker_session',
      'Create a background worker: a Copilot session scoped to one directory that can edit files and run commands there. ' +
        'Use it for anything that touches code or files. With initial_prompt, the task starts at once in the background and ' +
        'this returns immediately; you are told when it finishes with a "[Background task completed]" message. ' +
        'Give the worker a complete, self-contained task.',
      z.object({
        name: workerName,
        working_dir: z
          .string()
          .min(1)
          .optional()
          .describe('Absolute path of the directory to work in ("~" allowed). Left out: the workspace folder of the user\'s active file.'),
        initial_prompt: z.string().optional().describe('The task to start now (optional).'),
        isolation: z
          .enum(['worktree', 'read-only'])
          .optional()
          .describe(
            'worktree (default in a git repository): the worker edits its own copy on a new branch and the user reviews and applies its changes. ' +
              'read-only: it works in the folder itself (the user\u2019s uncommitted changes included, what git ignores hidden) and cannot change anything there — for tasks that only read (explain, review, search).',
          ),
      }),
      async (a) => {
        const workingDir = a.working_dir ?? opts.defaultWorkingDir?.();
        if (!workingDir)
          throw new WorkerError('working_dir is required here: no file is open in a workspace folder to default to. Give the absolute folder path.');
        const w = await pool.create({
          name: a.name,
          workingDir,
          prompt: a.initial_prompt,
          replyTo: replyTo(),
          isolation: a.isolation,
          signal: opts.signal?.(),
        });
        const note = `${a.working_dir ? '' : ` (the workspace folder of the user's active file, as no working_dir was given)`}${w.note ? ` ${w.note}` : ''}`;
        return a.initial_prompt?.trim()
          ? `On it — worker '${w.name}' started in ${w.workingDir}.${note} I'll get its result as a [Background task completed] message; tell the user it is under way.`
          : `Worker '${w.name}' created in ${w.workingDir} (idle).${note} Give it a task with send_to_worker.`;
      },
      true,
    ),
    tool(
      'send_to_worker',
      'Send a follow-up task to an existing worker. Non-blocking: returns at once; the result arrives later as a ' +
        '"[Background task completed]" message. Fails if the worker is still running: wait for it, or kill it first.',
      z.object({ name: workerName, prompt: z.string().min(1).describe('The instruction for the worker.') }),
      async (a) => {
        const w = await pool.send(a.name, a.prompt, replyTo());
        return `Task dispatched to worker '${w.name}' in ${w.workingDir}. I'll notify you when it's done.`;
      },
      true,
    ),
    tool(
      'list_sessions',
      'List Baton\u2019s workers: the active ones (name, directory, status, elapsed) and the recently finished ones.',
      z.object({}),
      async () => formatWorkerList(pool.list(), now()),
    ),
    tool(
      'check_session_status',
      'Detailed status of one worker: state, directory, elapsed time and the end of its latest output.',
      z.object({ name: workerName }),
      async (a) => {
        const s = pool.status(a.name);
        const lines = [
          `Worker '${s.name}': ${s.state}${s.state === 'running' ? ` for ${seconds(s.elapsedMs)}` : s.finishedAt ? ` (after ${seconds(s.elapsedMs)})` : ''} in ${s.workingDir}`,
          `Session: ${s.sessionId ?? 'none yet'} (${s.source}); tasks so far: ${s.tasks}`,
          ...(s.changes?.files ? [`Touched files (${s.changes.files}): ${touchedList(s)}`] : []),
          ...(s.verify && !s.outcome ? [capitalized(s.verify.line)] : []),
          '',
          s.lastOutput ? `Latest output:\n${s.lastOutput}` : 'No output yet.',
        ];
        return lines.join('\n');
      },
    ),
    tool(
      'kill_session',
      'Stop a worker: aborts its running task, disconnects its session and frees its slot.',
      z.object({ name: workerName }),
      async (a) => pool.kill(a.name, 'tool'),
      true,
    ),
    tool(
      'list_machine_sessions',
      'List the Copilot CLI sessions on this machine (terminal, editors, Baton), newest first, with id, directory, summary ' +
        'and last modified time. cwd_filter keeps sessions whose directory is inside the given path.',
      z.object({
        cwd_filter: z.string().min(1).optional().describe('A directory; only sessions in it or below are listed.'),
        limit: z.number().int().min(1).max(100).optional().describe('How many to list (1-100, default 20).'),
      }),
      async (a) => formatMachineSessions(await pool.machine.list({ cwdFilter: a.cwd_filter, limit: a.limit ?? 20 }), now()),
    ),
    tool(
      'attach_machine_session',
      'Bring an existing machine session (from list_machine_sessions) in as a worker, to continue its work with send_to_worker. ' +
        'A session another process is using is never written into: set fork to true to continue in a copy instead.',
      z.object({
        session_id: z.string().min(1).describe('The session id from list_machine_sessions.'),
        name: workerName,
        fork: z.boolean().optional().describe('Work in a copy of the session (needed when it is in use elsewhere).'),
      }),
      async (a) => {
        const w = await pool.machine.attach(a.session_id, a.name, { fork: a.fork, replyTo: replyTo() });
        return `${a.fork ? `Forked session ${a.session_id} into ${w.sessionId}` : `Attached session ${a.session_id}`} as worker '${w.name}' in ${w.workingDir} (idle). Give it a task with send_to_worker.`;
      },
      true,
    ),
  ];
}

export function formatWorkerList(workers: WorkerInfo[], now: number): string {
  const active = workers.filter((w) => w.state === 'running' || w.state === 'idle');
  const finished = workers.filter((w) => w.state !== 'running' && w.state !== 'idle');
  const lines: string[] = [];
  lines.push(active.length ? `Active workers (${active.length}):` : 'No active workers.');
  for (const w of active) {
    lines.push(
      `- ${w.name}: ${w.state}${w.state === 'running' ? ` for ${seconds(now - w.startedAt)}` : ''} in ${w.workingDir}${w.lastLine ? ` — ${w.lastLine}` : ''}${w.changes?.files ? `; touched: ${touchedList(w)}` : ''}`,
    );
  }
  if (finished.length) {
    lines.push('', 'Recently finished:');
    for (const w of finished)
      lines.push(
        `- ${w.name}: ${w.state.replace('_', ' ')} in ${w.workingDir}${w.finishedAt ? ` (${ago(now - w.finishedAt)})` : ''}${w.changes?.files ? `; changes pending, touched: ${touchedList(w)}${w.verify ? `; ${w.verify.line}` : ''}` : w.outcome ? `; ${w.outcome.text}` : ''}`,
      );
  }
  return lines.join('\n');
}

export function formatMachineSessions(sessions: MachineSession[], now: number): string {
  if (!sessions.length) return 'No Copilot sessions found on this machine for that filter.';
  return [
    `${sessions.length} session(s), newest first:`,
    ...sessions.map(
      (s) =>
        `- ${s.sessionId} | ${s.workingDir ?? '(no directory)'} | ${s.summary.replace(/\s+/g, ' ').slice(0, 120)} | modified ${ago(now - s.modifiedAt)}` +
        `${s.inUse ? ' | IN USE by another process (attach with fork: true)' : ''}${s.worker ? ` | Baton worker '${s.worker}'` : ''}`,
    ),
  ].join('\n');
}

/** "src/a.ts, src/b.ts" (and how many more than the card lists). */
function capitalized(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

function touchedList(w: WorkerInfo): string {
  const paths = w.changes?.paths ?? [];
  const more = (w.changes?.files ?? 0) - paths.length;
  return `${paths.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** "just now", "5m ago", "3h ago", "2d ago". */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.round(h / 24)}d ago`;
}
