// Forking a machine session without touching it.
// MEASURED (runtime 1.0.85): rpc.sessions.fork on a session that is not loaded in the forking
// runtime REPLACES the source's events.jsonl with one "Forked this session into ..." info event:
// the source loses its history and can no longer be resumed ("First event must be session.start").
// (When the source is loaded in the same runtime the event is appended properly.) A session of the
// user's must never be damaged, so Baton forks a private copy of its folder instead and deletes the
// copy afterwards; the source's files are only read.
import { randomUUID } from 'node:crypto';
import { cp, open, readFile, rm, stat, truncate } from 'node:fs/promises';
import * as path from 'node:path';
import type { CopilotClient } from '@github/copilot-sdk';

/** Session ids are UUIDs; anything else could walk out of the session-state folder. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export class ForkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForkError';
  }
}

export function sessionFolder(copilotHome: string, sessionId: string): string {
  if (!SESSION_ID.test(sessionId)) throw new ForkError(`'${sessionId}' is not a session id.`);
  return path.join(copilotHome, 'session-state', sessionId);
}

/** Forks `sessionId` (in `copilotHome`) into a new session named `name`; returns the new id. The source is only read. */
export async function forkWithoutTouching(client: CopilotClient, copilotHome: string, sessionId: string, name: string): Promise<string> {
  const source = sessionFolder(copilotHome, sessionId);
  const events = path.join(source, 'events.jsonl');
  if (!(await stat(events).catch(() => undefined))?.isFile()) {
    throw new ForkError(`The files of session ${sessionId} are not in ${path.join(copilotHome, 'session-state')}, so it cannot be forked safely.`);
  }
  const tempId = randomUUID();
  const temp = sessionFolder(copilotHome, tempId);
  try {
    // Lock files are the other process's, not part of the history.
    await cp(source, temp, { recursive: true, filter: (src) => !/(^|[\\/])(inuse\.\d+\.lock|\.workspace-fork\.lock)$/.test(src) });
    await dropPartialLine(path.join(temp, 'events.jsonl'));
    const forked = await client.rpc.sessions.fork({ sessionId: tempId, name });
    return forked.sessionId;
  } finally {
    // The copy is Baton's own: deleting it is allowed (and it holds nothing the fork lacks).
    await client.deleteSession(tempId).catch(() => rm(temp, { recursive: true, force: true }).catch(() => undefined));
  }
}

/** A copy taken while the other process appends may end mid-line: cut back to the last whole event. */
async function dropPartialLine(file: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  if (!text || text.endsWith('\n')) return;
  const keep = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1), 'utf8');
  await truncate(file, keep);
  // Make sure the truncation is on disk before the runtime reads the file.
  const fh = await open(file, 'r+');
  await fh.sync().finally(() => fh.close());
}
