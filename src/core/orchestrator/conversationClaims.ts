// Which window runs which conversation. Several VS Code windows share Baton's storage; a conversation's session is
// run by one of them at a time, its owner, and the others send into it through the store (sharedConversation.ts).
// A claim is a small file per conversation, created with O_EXCL so two windows claiming at once cannot both win;
// it names the owner's process, and an owner that is gone (a crash, a kill) holds nothing: its process is dead, or its
// presence file went stale (windowPresence.ts: a pid alone is not enough).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { WindowPresence, type PresenceTiming } from './windowPresence';

/** The conversation every message before there were several belongs to (the store defines it; see store/types.ts). */
export { MAIN_CONVERSATION } from '../store/types';

/** A window as the log and the claims name it: its process, and the workspace it shows (stable across reloads). */
export interface WindowStamp {
  pid: number;
  host: string;
  /** This build of Baton's core in its process (a test or a restart may build another in the same process). */
  instance: string;
  /** The window's workspace folders, joined: the same window after a reload has the same key. */
  key: string;
  /** What a person calls the window: its workspace's name. */
  label: string;
  /** It rewrites its presence file every beat, so a stale one means it is gone. Absent from older Batons' stamps. */
  beats?: true;
}

/** A window as a row or a claim names it, enough to tell whether it is gone. */
export type WindowRef = Pick<WindowStamp, 'pid' | 'host' | 'beats'> & { instance?: string };

export interface ConversationHolder extends WindowStamp {
  conversation: string;
  since: string;
}

/** The cores alive in this process (see WindowStamp.instance). */
const liveInstances = new Set<string>();

/** A new core in this process: its stamp, live until `retireInstance`. */
export function newInstance(): string {
  const id = randomUUID();
  liveInstances.add(id);
  return id;
}

export function retireInstance(id: string): void {
  liveInstances.delete(id);
}

/** This window as other windows see it: its process, and its workspace (the same after a reload). */
export function windowStamp(folders: string[]): WindowStamp {
  return {
    pid: process.pid,
    host: hostname(),
    instance: newInstance(),
    key: folders.join('\n') || '(no folder)',
    label: folders[0] ? basename(folders[0]) : 'a window without a folder',
    beats: true,
  };
}

/**
 * Whether the process of `stamp` is known to be gone, by its pid alone: a process on another host is never judged gone
 * from here, and a pid an unrelated process took since is not caught. `ConversationClaims.gone` also asks the window's
 * presence file.
 */
export function processGone(stamp: WindowRef): boolean {
  if (stamp.host !== hostname()) return false;
  if (stamp.pid === process.pid) return stamp.instance !== undefined && !liveInstances.has(stamp.instance);
  try {
    process.kill(stamp.pid, 0);
    return false;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

export class ConversationClaims {
  private readonly held = new Set<string>();
  /** When `othersOpen` last read the folder, and what it found. */
  private othersRead: { at: number; open: boolean } | undefined;
  private sweptGone = false;
  private readonly presence: WindowPresence;

  constructor(
    private readonly dir: string,
    readonly self: WindowStamp,
    timing?: PresenceTiming,
  ) {
    this.presence = new WindowPresence(dir, self, timing);
  }

  /**
   * Whether the window of `stamp` is gone: its process is (on this host), or it closed, or it stopped beating. Asked at
   * each turn's start and in each once-a-second scan: a kill(pid, 0) and a stat at most.
   */
  gone(stamp: WindowRef): boolean {
    if (processGone(stamp)) return true;
    // A core of this process: `processGone` knew it exactly.
    if (stamp.pid === process.pid && stamp.host === hostname()) return false;
    const presence = this.presence.state(stamp);
    // A window writes its presence file before it claims or runs anything, and removes it only once it has let go.
    if (presence === 'missing') return true;
    // An older Baton never rewrites its file: its age says nothing, and its pid is all there is to go by.
    return presence === 'stale' && stamp.beats === true;
  }

  /**
   * One file per conversation id, never two ids to one file: an id of letters, digits and '-' is the name itself
   * ('main'); any other has what a file name cannot hold replaced and a hash of the exact id added. Replacing alone gave
   * 'team.x' and 'team@x' one file: a window was refused the one another held, and could free the other's claim.
   */
  private file(conversation: string): string {
    const name = /^[A-Za-z0-9-]+$/.test(conversation)
      ? conversation
      : `${conversation.replace(/[^A-Za-z0-9-]/g, '_').slice(0, 64)}_${createHash('sha256').update(conversation).digest('hex').slice(0, 16)}`;
    return join(this.dir, `conversation-${name}.owner`);
  }

  private read(conversation: string): ConversationHolder | undefined {
    return this.readFile(this.file(conversation));
  }

  private readFile(file: string): ConversationHolder | undefined {
    try {
      const value = JSON.parse(readFileSync(file, 'utf8')) as ConversationHolder;
      return typeof value.pid === 'number' && typeof value.host === 'string' ? value : undefined;
    } catch {
      return undefined; // no claim, or one being written: nobody holds it yet
    }
  }

  private isMine(h: ConversationHolder | undefined): boolean {
    return !!h && h.pid === this.self.pid && h.host === this.self.host && h.instance === this.self.instance;
  }

  /** The live window other than this one that holds `conversation`, if any. */
  holder(conversation: string): ConversationHolder | undefined {
    // Held here: known without reading the file (the panel asks at each of a turn's log syncs).
    if (this.held.has(conversation)) return undefined;
    const h = this.read(conversation);
    return h && !this.isMine(h) && !this.gone(h) ? h : undefined;
  }

  /** Claims `conversation` for this window; returns the other live window holding it instead, if there is one. */
  claim(conversation: string): ConversationHolder | undefined {
    if (this.held.has(conversation)) return undefined;
    mkdirSync(this.dir, { recursive: true });
    const mine: ConversationHolder = { ...this.self, conversation, since: new Date().toISOString() };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        writeFileSync(this.file(conversation), JSON.stringify(mine), { flag: 'wx' });
        this.held.add(conversation);
        return undefined;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const other = this.read(conversation);
      if (other && !this.gone(other) && !this.isMine(other)) return other;
      // Left by a process that is gone (or by this one before a failed release): take it over.
      rmSync(this.file(conversation), { force: true });
    }
    return this.holder(conversation);
  }

  release(conversation: string): void {
    if (!this.held.delete(conversation)) return;
    if (this.isMine(this.read(conversation))) rmSync(this.file(conversation), { force: true });
  }

  releaseAll(): void {
    for (const c of [...this.held]) this.release(c);
  }

  /**
   * Says this window is open (one small file per open window, rewritten every beat, removed by `leave`; a gone window's
   * is swept). The first time, what windows that are gone left is removed: a crash skips `release`, and a conversation
   * that is never opened again would keep its owner file for good.
   */
  announce(): void {
    mkdirSync(this.dir, { recursive: true });
    this.presence.start(JSON.stringify(this.self), () => this.dropTaken());
    if (this.sweptGone) return;
    this.sweptGone = true;
    for (const name of readdirSync(this.dir)) {
      if (!name.startsWith('conversation-') || !name.endsWith('.owner')) continue;
      const h = this.readFile(join(this.dir, name));
      if (h && this.gone(h)) rmSync(join(this.dir, name), { force: true });
    }
    this.others();
  }

  leave(): void {
    this.presence.stop();
  }

  /**
   * A conversation whose claim is no longer this window's (another took it while this one was judged gone: frozen past
   * the bound) is given up here too, so the next turn is sent to that window rather than run in a second session.
   */
  private dropTaken(): void {
    for (const c of [...this.held]) if (!this.isMine(this.read(c))) this.held.delete(c);
  }

  /** The open windows other than this one; the files of windows that are gone are removed on the way. */
  others(): WindowStamp[] {
    let names: string[];
    try {
      // This window's own file is known by its name: not read (asked at the start of every turn).
      const own = basename(this.presence.file(this.self));
      names = readdirSync(this.dir).filter((n) => n.startsWith('window-') && n.endsWith('.present') && n !== own);
    } catch {
      return [];
    }
    const out: WindowStamp[] = [];
    for (const name of names) {
      let stamp: WindowStamp;
      try {
        stamp = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as WindowStamp;
      } catch {
        continue; // being written
      }
      if (this.gone(stamp)) rmSync(join(this.dir, name), { force: true });
      else if (stamp.instance !== this.self.instance) out.push(stamp);
    }
    return out;
  }

  /**
   * Whether another window is open, from a read of the folder at most `maxAgeMs` old: every turn's start asks (its reply
   * streams to the other windows only if there are some), and a folder read there was the turn's one synchronous file
   * access (a readdir and a read per window's file). Windows open and close far less often than turns start.
   */
  othersOpen(maxAgeMs: number): boolean {
    const now = performance.now();
    if (!this.othersRead || now - this.othersRead.at >= maxAgeMs) this.othersRead = { at: now, open: this.others().length > 0 };
    return this.othersRead.open;
  }

  /** For Doctor: every open window and the conversations it holds. */
  describe(): string {
    const owners = this.list();
    const held = (stamp: WindowStamp): string => {
      const mine = owners.filter((o) => o.pid === stamp.pid && o.instance === stamp.instance).map((o) => o.conversation);
      return mine.length ? `holds ${mine.map((c) => `conversation '${c}'`).join(', ')}` : 'holds no conversation';
    };
    return [this.self, ...this.others()].map((w) => `${w === this.self ? 'this window' : `window '${w.label}'`} (pid ${w.pid}) ${held(w)}`).join('; ');
  }

  /** Every conversation a live window holds, for Doctor. */
  list(): Array<ConversationHolder & { mine: boolean }> {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.startsWith('conversation-') && n.endsWith('.owner'));
    } catch {
      return [];
    }
    return names
      .map((n) => this.readFile(join(this.dir, n)))
      .filter((h): h is ConversationHolder => !!h && !this.gone(h))
      .map((h) => ({ ...h, mine: this.isMine(h) }));
  }
}
