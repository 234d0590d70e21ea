// One orchestrator session, one writer. Two VS Code windows share Baton's storage, so both would
// resume the saved session id; the runtime's own in-use check does not see sessions kept in Baton's
// session folder (measured), so each window claims the session it runs with a small file.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive as alive } from '../util/processAlive';

interface Claim {
  pid: number;
  host: string;
}

export class SessionClaims {
  private readonly held = new Set<string>();

  constructor(private readonly dir: string) {}

  private file(sessionId: string): string {
    return join(this.dir, `${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.claim`);
  }

  /** The pid of another live process on this host that holds the session, if any. */
  holder(sessionId: string): number | undefined {
    try {
      const claim = JSON.parse(readFileSync(this.file(sessionId), 'utf8')) as Claim;
      if (claim.host === hostname() && claim.pid !== process.pid && alive(claim.pid)) return claim.pid;
    } catch {
      /* no claim, or an unreadable one: free */
    }
    return undefined;
  }

  /** Claims the session for this process; false when another live window holds it. */
  claim(sessionId: string): boolean {
    if (this.holder(sessionId) !== undefined) return false;
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.file(sessionId), JSON.stringify({ pid: process.pid, host: hostname() } satisfies Claim));
    this.held.add(sessionId);
    return true;
  }

  release(sessionId: string | undefined): void {
    if (!sessionId || !this.held.delete(sessionId)) return;
    rmSync(this.file(sessionId), { force: true });
  }

  /** Removes the claims of processes that are gone (a crash leaves its file); returns the ids still claimed. */
  sweep(): Set<string> {
    const live = new Set<string>();
    let files: string[] = [];
    try {
      files = readdirSync(this.dir).filter((f) => f.endsWith('.claim'));
    } catch {
      return live;
    }
    for (const f of files) {
      const id = f.slice(0, -'.claim'.length);
      let claim: Claim | undefined;
      try {
        claim = JSON.parse(readFileSync(join(this.dir, f), 'utf8')) as Claim;
      } catch {
        /* unreadable: nobody can hold it */
      }
      // A claim from another machine (shared storage) cannot be checked: it stays.
      if (this.held.has(id) || (claim && (claim.host !== hostname() || alive(claim.pid)))) live.add(id);
      else rmSync(join(this.dir, f), { force: true });
    }
    return live;
  }

  releaseAll(): void {
    for (const id of [...this.held]) this.release(id);
  }
}
