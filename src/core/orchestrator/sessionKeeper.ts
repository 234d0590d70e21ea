// Keeps the orchestrator's one session: creates, resumes, recovers or replaces it, and remembers
// its id and fingerprint in the store so a restart resumes the same conversation.
// Invariants: a session claimed by another live window is never written into; a session whose
// tools or Baton version drifted is replaced (with recovery context, not a resend), one saved on
// another model is resumed and switched (as a live one is) when the model it was on is known; the
// recovery context rides on the next prompt the session receives, so it costs no extra model call; a runtime lost while
// the session opens leaves the saved session saved (the retry resumes it); a saved session replaced is deleted and its
// claim released (never one another window holds), or it would stay on disk, claimed, until the window closes.
import type { AgentSession, AgentSessions, SessionSpec } from '../copilot/agentSessions';
import type { BatonTool } from '../copilot/batonTool';
import { conversationStateKey, MAIN_CONVERSATION, type BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import type { OrchestratorEventBody } from './events';
import { sessionFingerprint } from './fingerprint';
import type { SessionClaims } from './sessionClaims';
import { runtimeCompaction, runtimeCompactionUsage } from './runtimeCompaction';
import { parseMark, STATE_COMPACTION_MARK, type CompactionMark } from './conversationCompactor';
import { buildRecoveryPrompt } from './systemMessage';
import { classifyError, type ErrorClass } from '../copilot/errors';

/** The saved session id and fingerprint, per conversation (conversationStateKey: MAIN_CONVERSATION's are these keys). */
export const STATE_SESSION = 'orchestrator_session_id';
export const STATE_FINGERPRINT = 'orchestrator_fingerprint';
/**
 * The context the conversation's next session starts from (a compaction's summary, or a replaced session's recent
 * turns), per conversation, until that session has it: kept in the store, so a window reloaded in between does not
 * start the next session knowing nothing.
 */
export const STATE_PENDING_CONTEXT = 'orchestrator_pending_context';
/** How a resume fails when the runtime answered that it cannot load the session: only then is the session replaced. */
const UNLOADABLE = new Set<ErrorClass>(['session', 'fatal']);
/** A saved fingerprint starting with this marks the saved session as not to be resumed; the rest is the reason. */
export const STALE_PREFIX = 'stale: ';

/** Every conversation's saved session id (the sweep of orphaned sessions and the workers' attach check keep these). */
export function savedSessionIds(store: BatonStore): string[] {
  return store
    .stateKeys(STATE_SESSION)
    .map((k) => store.getState(k))
    .filter((v): v is string => !!v);
}

/** Marks every conversation's saved session stale (skills changed): each next session is new, with recovery context. */
export function markAllStale(store: BatonStore, reason: string): void {
  for (const key of store.stateKeys(STATE_SESSION)) {
    if (store.getState(key)) store.setState(STATE_FINGERPRINT + key.slice(STATE_SESSION.length), `${STALE_PREFIX}${reason}`);
  }
}

interface PendingContext {
  kind: 'recovery' | 'summary';
  /** Text for the model: it rides on the next prompt. */
  text: string;
}

export interface SessionKeeperOptions {
  sessions: AgentSessions;
  store: BatonStore;
  logger: Logger;
  version: string;
  tools: () => BatonTool[];
  /** The spec of a new or resumed session on `model` (system message, MCP servers, skills). */
  spec: (model: string, tools: BatonTool[]) => Extract<SessionSpec, { role: 'orchestrator' }>;
  claims?: SessionClaims;
  /** The conversation this keeper's session belongs to (its state keys). Default MAIN_CONVERSATION. */
  conversation?: string;
  emit: (event: OrchestratorEventBody) => void;
}

export class SessionKeeper {
  private session: AgentSession | undefined;
  /** Stops listening to the live session's own events. */
  private unwatch: (() => void) | undefined;
  private model: string | undefined;
  /** The fingerprint of the live session (also in the store, read back only at start). */
  fingerprint: string | undefined;
  private readonly signatures = new Map<string, string>();
  /** How the live session was opened, and why (session.loaded). */
  opened: { how: 'created' | 'resumed' | 'recovered' | 'drifted'; reason?: string } | undefined;

  private readonly sessionKey: string;
  private readonly fingerprintKey: string;
  private readonly pendingKey: string;
  private readonly markKey: string;

  constructor(private readonly opts: SessionKeeperOptions) {
    const conversation = opts.conversation ?? MAIN_CONVERSATION;
    this.sessionKey = conversationStateKey(STATE_SESSION, conversation);
    this.fingerprintKey = conversationStateKey(STATE_FINGERPRINT, conversation);
    this.pendingKey = conversationStateKey(STATE_PENDING_CONTEXT, conversation);
    this.markKey = conversationStateKey(STATE_COMPACTION_MARK, conversation);
  }

  /** Where the conversation's last compaction left off: its summary of everything through `throughLogId`. */
  get compactionMark(): CompactionMark | undefined {
    return parseMark(this.opts.store.getState(this.markKey));
  }

  /**
   * The log is taken back to before row `logId`: a summary that folded in that row or a later one tells of messages
   * that are gone, so it is dropped (the next compaction summarizes what the log holds then).
   */
  takenBackTo(logId: number): void {
    const mark = this.compactionMark;
    if (mark && logId <= mark.throughLogId) this.opts.store.deleteState(this.markKey);
  }

  /** The context the next session starts from, and what it is: a replaced session's recent turns, or a compaction's summary. */
  private get pending(): PendingContext | undefined {
    const raw = this.opts.store.getState(this.pendingKey);
    if (!raw) return undefined;
    try {
      const p = JSON.parse(raw) as PendingContext;
      if ((p.kind === 'recovery' || p.kind === 'summary') && typeof p.text === 'string' && p.text) return p;
    } catch {
      /* unreadable: nothing pending */
    }
    return undefined;
  }

  private setPending(kind: PendingContext['kind'], text: string | undefined): void {
    if (text) this.opts.store.setState(this.pendingKey, JSON.stringify({ kind, text } satisfies PendingContext));
    else this.opts.store.deleteState(this.pendingKey);
  }

  /** The session id saved for this conversation (resumed by the next ensure()). */
  get savedId(): string | undefined {
    return this.opts.store.getState(this.sessionKey);
  }

  get current(): AgentSession | undefined {
    return this.session;
  }

  get currentModel(): string | undefined {
    return this.model;
  }

  /**
   * The context for the next prompt. It stays pending until a prompt carrying it reaches the session (carried): an
   * attempt that fails before that (the runtime lost while sending) must leave it for the retry.
   */
  get recovery(): string | undefined {
    return this.pending?.text;
  }

  /** `text` reached the session on a prompt: no longer pending, unless other context replaced it meanwhile. */
  carried(text: string): void {
    if (this.pending?.text === text) this.setPending('recovery', undefined);
  }

  /** What rides on the next prompt besides the message. */
  get pendingContext(): 'none' | 'recovery' | 'summary' {
    return this.pending?.kind ?? 'none';
  }

  /** The signature in force for the session (live, or saved for the next resume). */
  /** A session to resume or continue: the live one, or one saved in the store. */
  get hasSession(): boolean {
    return !!this.session || !!this.opts.store.getState(this.sessionKey);
  }

  get savedSignature(): string | undefined {
    return this.fingerprint ?? this.opts.store.getState(this.fingerprintKey);
  }

  /** The signature a session on `model` would have now. */
  signature(model: string): string {
    // Within one process the version and the tools' names and schemas never change (a skill change marks the saved
    // signature stale instead), so only the model varies: hashing 40 tool schemas on every turn would cost more
    // than the rest of the turn's bookkeeping.
    let known = this.signatures.get(model);
    if (known === undefined) this.signatures.set(model, (known = sessionFingerprint(this.opts.version, model, this.opts.tools())));
    return known;
  }

  /** Accepts the drifted definition for the session (force): its saved signature becomes the current one. */
  acceptSignature(signature: string): void {
    this.fingerprint = signature;
    this.opts.store.setState(this.fingerprintKey, signature);
  }

  /**
   * Replaces the session by a new one that starts from `context` (a compaction's summary and the turns kept verbatim):
   * the next ensure() creates the new one; the old one is let go and deleted (retire).
   */
  replaceWithSummary(context: string): Promise<void> {
    const id = this.session?.id ?? this.savedId;
    const old = this.forget();
    this.setPending('summary', context);
    return this.retire(old, [id]);
  }

  /**
   * Replaces the session by a new one whose first prompt carries the log's recent turns, as a lost session is
   * recovered (an earlier message was edited and the session could not be cut there): returns the old one to let go.
   */
  restartFromLog(reason: string): AgentSession | undefined {
    const old = this.forget();
    this.setPending('recovery', this.recoveryContext(reason));
    return old;
  }

  /**
   * Lets go of a replaced session and deletes it and the other `ids` from the runtime's store: nothing refers to them
   * any more (they would be swept as orphans only at the next start). A session another window holds is left alone.
   */
  async retire(old: AgentSession | undefined, ids: Array<string | undefined>): Promise<void> {
    await old?.disconnect().catch(() => undefined);
    for (const id of new Set([...ids, old?.id])) {
      if (!id || this.opts.claims?.holder(id) !== undefined) continue;
      // Our own claim on one set aside earlier (dropped, not live) goes too: a claim left would keep it from the sweep.
      this.opts.claims?.release(id);
      await this.opts.sessions.delete(id).catch((err: unknown) => this.opts.logger.warn(`Deleting the replaced session ${id} failed: ${String(err)}`));
    }
  }

  /**
   * Deletes the saved session open() replaces, and releases this window's claim on it. No turn runs on it: it was let
   * go before open() (invalidate runs after the running turn, a drift's drop before the turn's first attempt), and
   * open() runs in the conversation's queue. Left alone: one another window holds, and any session that is not one of
   * Baton's own with history (never one outside Baton's folder: the user's, an attached one).
   */
  private async retireReplaced(id: string): Promise<void> {
    if (this.opts.claims?.holder(id) !== undefined) return;
    this.opts.claims?.release(id);
    if ((await this.opts.sessions.historyBytes(id).catch(() => undefined)) === undefined) return;
    await this.retire(undefined, [id]);
  }

  /**
   * Forgets the live session (a reset runtime took it, or it was lost): it stays saved, and the next ensure() resumes
   * it, or replaces (and deletes) it if its definition drifted meanwhile.
   */
  drop(): AgentSession | undefined {
    const old = this.session;
    this.session = undefined;
    this.unwatch?.();
    this.unwatch = undefined;
    // The next session's model comes from the settings again (a switch_model shows at once).
    this.model = undefined;
    return old;
  }

  /**
   * What the session was told changed (the model switched, routing turned on or off): the next message starts a fresh
   * session with the recent turns as context, as the switch promises, never the saved one resumed and switched.
   */
  invalidate(reason: string): AgentSession | undefined {
    const old = this.drop();
    if (this.opts.store.getState(this.sessionKey)) this.opts.store.setState(this.fingerprintKey, `${STALE_PREFIX}${reason}`);
    this.fingerprint = undefined;
    return old;
  }

  /** Starts over: no saved session, no recovery context. */
  forget(): AgentSession | undefined {
    const old = this.drop();
    this.setPending('recovery', undefined);
    this.opts.claims?.release(old?.id);
    this.opts.store.deleteState(this.sessionKey);
    this.opts.store.deleteState(this.fingerprintKey);
    return old;
  }

  /**
   * The session on `model`: the live one (switched if needed), the saved one resumed, or a new one (opened `ahead` of
   * its first message when the panel was opened: AgentSessions.create). `signal` (the turn's) ends a wait on the open.
   */
  async ensure(model: string, opts: { ahead?: boolean; signal?: AbortSignal } = {}): Promise<AgentSession> {
    const session = this.session ?? (await this.open(model, opts));
    if (this.model !== model) await this.switchModel(session, model);
    return session;
  }

  private async open(wanted: string, opts: { ahead?: boolean; signal?: AbortSignal }): Promise<AgentSession> {
    const { store, logger, sessions, claims } = this.opts;
    const tools = this.opts.tools();
    const savedId = store.getState(this.sessionKey);
    const savedFingerprint = store.getState(this.fingerprintKey);
    // The saved session on another model with the same tools (auto routing moved on while the runtime was lost) is
    // resumed on its own model and then switched, as a live one is: only the tools and Baton make it drift.
    const wantedFingerprint = sessionFingerprint(this.opts.version, wanted, tools);
    this.signatures.set(wanted, wantedFingerprint);
    const model = savedFingerprint === wantedFingerprint ? wanted : (this.savedModel(savedFingerprint, wanted, tools) ?? wanted);
    const fingerprint = model === wanted ? wantedFingerprint : sessionFingerprint(this.opts.version, model, tools);
    this.signatures.set(model, fingerprint);
    const spec = this.opts.spec(model, tools);

    let session: AgentSession | undefined;
    let how: 'created' | 'resumed' | 'recovered' | 'drifted' = 'created';
    let reason: string | undefined;
    /** The saved session this open replaces (drifted, or one the runtime could not load). */
    let replaced: string | undefined;
    const heldElsewhere = savedId && claims ? claims.holder(savedId) : undefined;
    if (savedId && heldElsewhere !== undefined) {
      // Another window runs this session: never write into it; start ours with the shared history.
      reason = `the saved session is open in another VS Code window (pid ${heldElsewhere})`;
      how = 'recovered';
    } else if (savedId && savedFingerprint === fingerprint) {
      try {
        session = await sessions.resume(savedId, spec, { signal: opts.signal });
        how = 'resumed';
      } catch (err) {
        // A runtime lost (or a turn stopped) while the session opened says nothing of the session: it stays saved,
        // and the retry resumes it. Only a session the runtime could not load is replaced.
        if (opts.signal?.aborted || !UNLOADABLE.has(classifyError(err))) throw err;
        reason = `resuming ${savedId} failed: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`;
        how = 'recovered';
        store.deleteState(this.sessionKey);
        replaced = savedId;
      }
    } else if (savedId) {
      // Drift: the tools, the model or Baton itself changed under a live session.
      reason = savedFingerprint?.startsWith(STALE_PREFIX)
        ? savedFingerprint.slice(STALE_PREFIX.length)
        : 'Baton, its tools or the model changed since the last session';
      how = 'drifted';
      store.deleteState(this.sessionKey);
      replaced = savedId;
    }
    if (!session) {
      // Kept before the create: a create that fails (the runtime lost) leaves the next one the same context.
      if (how !== 'created') this.setPending('recovery', this.recoveryContext(reason ?? 'unknown'));
      // Nothing refers to the replaced one any more (its recent turns are in the context above): deleted before the
      // create, so a create that fails does not leave it behind, unsaved and still claimed by this window.
      if (replaced) await this.retireReplaced(replaced);
      session = await sessions.create(spec, { ...(opts.ahead ? { ahead: true } : {}), signal: opts.signal });
      if (how !== 'created') logger.warn(`New orchestrator session ${session.id} (${how}): ${reason}`);
    }
    claims?.claim(session.id);
    store.setState(this.sessionKey, session.id);
    store.setState(this.fingerprintKey, fingerprint);
    this.fingerprint = fingerprint;
    this.session = session;
    this.watch(session);
    this.model = model;
    logger.info(`Orchestrator session ${session.id} ${how} on ${model}`);
    this.opened = {
      how,
      reason: how === 'created' && this.pendingContext === 'summary' ? 'started from the compacted conversation' : reason,
    };
    this.opts.emit({ type: 'session.ready', sessionId: session.id, how, reason });
    return session;
  }

  /**
   * The model the saved session was last on, other than `wanted`: one this process used, whose fingerprint with
   * today's tools is the saved one (so nothing but the model differs). Undefined: none is (the session drifted).
   */
  private savedModel(saved: string | undefined, wanted: string, tools: BatonTool[]): string | undefined {
    if (!saved) return undefined;
    for (const model of this.signatures.keys()) {
      if (model !== wanted && sessionFingerprint(this.opts.version, model, tools) === saved) return model;
    }
    return undefined;
  }

  /** A compaction the runtime made of the live session (by itself, or asked) is told like Baton's own. */
  private watch(session: AgentSession): void {
    this.unwatch?.();
    this.unwatch = session.onEvent((e) => {
      if (e.type !== 'session.compaction_complete') return;
      const compaction = runtimeCompaction(e.data);
      const usage = runtimeCompactionUsage(e.data);
      if (compaction) this.opts.emit({ type: 'compaction.applied', compaction, ...(usage ? { usage } : {}) });
    });
  }

  private async switchModel(session: AgentSession, model: string): Promise<void> {
    // setModel keeps the conversation; the fingerprint follows so a restart still resumes.
    await session.setModel(model);
    this.model = model;
    this.fingerprint = this.signature(model);
    this.opts.store.setState(this.fingerprintKey, this.fingerprint);
    this.opts.logger.info(`Switched the orchestrator to ${model}`);
    this.opts.emit({ type: 'model.changed', model });
  }

  /**
   * What a replacement session starts from: the last compaction's summary (a conversation compacted long ago would
   * otherwise forget everything before its last 10 turns) and the recent turns.
   */
  private recoveryContext(reason: string): string | undefined {
    return buildRecoveryPrompt(this.recoveryTurns(), reason, this.compactionMark?.summary) || undefined;
  }

  /** The last 10 settled turns, oldest first, without the pending message being answered now. */
  private recoveryTurns(): Array<{ role: string; source: string; content: string }> {
    return this.opts.store
      .recentLog(12)
      .filter((e) => e.status !== 'pending' && e.content)
      .slice(-10)
      .map((e) => ({ role: e.role, source: e.source, content: e.content }));
  }
}
