// Before the user types a task for a worker: says why it cannot take one (followUpRefusal.ts), so no text is typed
// only to be refused and lost. True: refused, and said.
import * as vscode from 'vscode';
import { followUpRefusal } from '../core/workers/followUpRefusal';
import type { WorkerPool } from '../core/workers/workerPool';

export function refusedFollowUp(pool: Pick<WorkerPool, 'list'>, name: string): boolean {
  const w = pool.list().find((x) => x.name === name);
  const why = w && followUpRefusal(w);
  if (why) void vscode.window.showErrorMessage(`Baton: ${why}`);
  return why !== undefined;
}
