// The steps of a turn before it is routed and after it settles, in Warlock's orchestrator order: load the session,
// check drift, wait on the compaction lock, window what the turn sends (relevant memories, caller history); then,
// once the turn is written, compact the conversation if its summarize policy says so. Each step fires its event.
// Invariants: a drift refused by the caller fails the turn before anything is opened or sent; the compaction lock
// is per conversation (one Orchestrator per conversation) and a turn never interleaves with a compaction; a turn never
// waits on a compaction that waits for that turn (PendingCompaction.after), or neither would ever end.
import type { AgentSessions } from '../copilot/agentSessions';
import type { CallUsage } from '../copilot/callUsage';
import { SESSION_HISTORY_BYTES } from '../store/bounds';
import { conversationStateKey, type BatonStore, type ConversationStateName } from '../store/types';
import { untilAborted } from '../util/delay';
import type { Logger } from '../util/logger';
import type { CheckpointWriter } from './checkpoints';
import {
  compactedContext,
  compactionOf,
  DEFAULT_SUMMARIZE,
  parseMark,
  STATE_COMPACTION_MARK,
  parseSummarizePolicy,
  planCompaction,
  settledMessages,
  summarize,
  summaryModel,
  summaryRequest,
  type SummarizePolicy,
} from './conversationCompactor';
import { DriftError } from './driftError';
import type { OrchestratorSettings } from './orchestratorOptions';
import type { Compaction, DriftAction, OrchestratorEventBody, TurnOptions } from './events';
import type { SessionKeeper } from './sessionKeeper';
import { historyContext, memoryContext, RELEVANT_MEMORIES } from './turnContext';
import type { QueuedTurn } from './turn';

export interface TurnLifecycleDeps {
  store: BatonStore;
  sessions: AgentSessions;
  logger: Logger;
  keeper: SessionKeeper;
  checkpoints: CheckpointWriter;
  emit: (event: OrchestratorEventBody) => void;
  /** The model a turn would start on (the live session's, or the settings'). */
  model: () => string;
  /** The settings: the summarize policy (baton.conversation.summarize) and the model the summarizer runs on. */
  settings: () => OrchestratorSettings;
  /** This conversation's id (state keys are per conversation). */
  conversation: () => string;
  /** True once the conversation is closing: a failure then is not a reason to replace its session. */
  closing: () => boolean;
  summaryTimeoutMs?: number;
  /** A summary's request: billed to the conversation, though it is no turn of it. */
  onUsage?: (usage: CallUsage) => void;
}

const LOG_SCAN = 200;

/** A compaction asked and not yet settled, in the order asked (each runs after the one before it). */
interface PendingCompaction {
  run: Promise<Compaction | undefined>;
  /** The running turn it waits for before it starts (the compact command asked mid-turn): that turn goes on through the lock. */
  after?: string;
}

/** How a compaction starts: `idle` resolves once it may (no turn running), `after` names the turn `idle` waits for. */
export interface CompactStart {
  turnId?: string;
  idle?: Promise<unknown>;
  after?: string;
  /** When there is nothing to fold or the summary fails, the session is still replaced (TurnLifecycle.compact). */
  orElse?: 'or-recover';
}

export class TurnLifecycle {
  private readonly pending: PendingCompaction[] = [];
  private held: string | undefined;

  constructor(private readonly deps: TurnLifecycleDeps) {}

  private settingsPolicy(): SummarizePolicy {
    return this.deps.settings().summarize ?? DEFAULT_SUMMARIZE;
  }

  /** This conversation's own state key (deleted with the conversation). */
  private key(name: ConversationStateName): string {
    return conversationStateKey(name, this.deps.conversation());
  }

  /** The summarize policy in force: this conversation's own (set through the API), else the setting's. */
  get policy(): SummarizePolicy {
    const own = this.deps.store.getState(this.key('summarize_policy'));
    return own ? parseSummarizePolicy(JSON.parse(own), this.settingsPolicy()) : this.settingsPolicy();
  }

  /** Sets (or with undefined, clears) this conversation's own policy. */
  setPolicy(policy: SummarizePolicy | undefined): void {
    if (policy) this.deps.store.setState(this.key('summarize_policy'), JSON.stringify(parseSummarizePolicy(policy, this.settingsPolicy())));
    else this.deps.store.deleteState(this.key('summarize_policy'));
  }

  /**
   * Drift (the definition signature against the session's), then the session: fires session.loaded and
   * drift.checked. Throws DriftError, before anything is opened, when the caller asked for an error; throws the
   * abort reason when `signal` (the turn's: Stop, its time limit) ends the wait on the open.
   */
  async load(turn: QueuedTurn, signal?: AbortSignal): Promise<void> {
    const { keeper } = this.deps;
    const options: TurnOptions = turn.options ?? {};
    // A live session's model may change under it (routing switches it): only its tools and Baton count then.
    const model = keeper.currentModel ?? this.deps.model();
    const signature = keeper.signature(model);
    const previous = keeper.hasSession ? keeper.savedSignature : undefined;
    const drifted = previous !== undefined && previous !== signature;
    let action: DriftAction = 'none';
    if (drifted && options.force) {
      keeper.acceptSignature(signature);
      action = 'forced';
    } else if (drifted && options.onDrift === 'error') {
      this.deps.emit({ type: 'drift.checked', turnId: turn.turnId, drifted, signature, previous, action: 'refused' });
      throw new DriftError(signature, previous);
    } else if (drifted) {
      // The keeper replaces a drifted session (with the recent turns as recovery context) when it opens one.
      void keeper.drop()?.disconnect();
      action = 'renewed';
    }
    const wasLive = !!keeper.current;
    let opened = true;
    try {
      await keeper.ensure(model, { signal });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      // The turn's retries open it again and report the failure; nothing is loaded to announce.
      opened = false;
      this.deps.logger.warn(`Turn ${turn.turnId}: opening the session failed before routing: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (opened) {
      const o = keeper.opened;
      const how = wasLive ? 'resumed' : o?.how === 'drifted' ? 'recovered' : (o?.how ?? 'created');
      const reason = wasLive ? 'the conversation\u2019s live session' : (o?.reason ?? (how === 'resumed' ? 'the saved session' : 'no session yet'));
      this.deps.emit({ type: 'session.loaded', turnId: turn.turnId, sessionId: keeper.current?.id, how, reason });
    }
    this.deps.emit({ type: 'drift.checked', turnId: turn.turnId, drifted, signature, ...(previous !== undefined ? { previous } : {}), action });
  }

  /** A compaction (summarize) holds the conversation now. */
  get isCompacting(): boolean {
    return this.pending.length > 0;
  }

  /** Resolves once no compaction holds the conversation (whatever its outcome). */
  async whenCompacted(): Promise<void> {
    while (this.pending.length) await this.pending[this.pending.length - 1]!.run.catch(() => undefined);
  }

  /**
   * What `turnId` must wait for: the newest compaction that does not wait for it. Those that do come after it (all asked
   * while it ran) and start once it ends, so they hold it never.
   */
  private lockFor(turnId: string): Promise<unknown> | undefined {
    return [...this.pending].reverse().find((p) => p.after !== turnId)?.run;
  }

  /**
   * The turn waiting on the lock: nothing of it has been sent (a summary takes as long as a reply), so it can still
   * be withdrawn as a queued message can (Orchestrator.withdraw). Cleared before the turn goes on to send.
   */
  get heldTurn(): string | undefined {
    return this.held;
  }

  /** Waits while a compaction holds the conversation, and says so; throws the abort reason once `signal` aborts. */
  async waitForLock(turn: QueuedTurn, signal?: AbortSignal): Promise<void> {
    const lock = this.lockFor(turn.turnId);
    if (!lock) return;
    this.held = turn.turnId;
    this.deps.emit({ type: 'lock.waiting', turnId: turn.turnId, holder: 'compaction' });
    try {
      // The summary goes on whatever the turn does: only the wait ends (a withdrawal, Stop, its time limit).
      await untilAborted(
        lock.catch(() => undefined),
        signal,
      );
    } finally {
      this.held = undefined;
    }
    // Aborted as the summary ended: the abort was accepted while held, so the turn ends before sending anything.
    if (signal?.aborted) throw signal.reason;
  }

  /** The prompt as sent (the message and what this turn adds to it); fires history.windowed. */
  window(turn: QueuedTurn): string {
    const { store } = this.deps;
    const parts = [turn.prompt];
    let history = 0;
    const given = turn.options?.history;
    if (given?.length && !settledMessages(store.recentLog(LOG_SCAN)).length) {
      const h = historyContext(given);
      if (h.text) parts.push(h.text);
      history = h.count;
    }
    // Worker results are Baton's own messages: memories are matched to what people write.
    const memories = turn.origin.channel === 'background' || !turn.text ? [] : store.relevantMemories(turn.text, RELEVANT_MEMORIES);
    const memoryText = memoryContext(memories);
    if (memoryText) parts.push(memoryText);
    const prompt = parts.join('\n\n');
    this.deps.emit({
      type: 'history.windowed',
      turnId: turn.turnId,
      window: {
        context: this.deps.keeper.pendingContext,
        history,
        memories: memories.map((m) => ({ id: m.id, category: m.category })),
        promptChars: prompt.length,
      },
    });
    return prompt;
  }

  /** After a complete turn is written: compacts when more than `afterTurns` turns settled since the last compaction. */
  async afterSettled(turnId: string): Promise<void> {
    // A compaction waits for this turn to end (the compact command): it folds this turn too, and waiting on it here
    // would keep the turn from ending.
    if (this.pending.some((p) => p.after === turnId)) return;
    const policy = this.policy;
    const mark = policy.afterTurns > 0 ? parseMark(this.deps.store.getState(this.key(STATE_COMPACTION_MARK))) : undefined;
    const turns = this.deps.checkpoints.settledTurns - (mark?.atTurn ?? 0);
    if (policy.afterTurns > 0 && turns > policy.afterTurns) {
      this.deps.emit({ type: 'compaction.suggested', turnId, turns, afterTurns: policy.afterTurns, keep: policy.keep });
      await this.compact(policy.keep, { turnId }).catch((err: unknown) =>
        this.deps.logger.warn(`Compacting the conversation failed: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
  }

  /**
   * The runtime appends every event of a session to its history and never shortens it, its own compaction included
   * (measured: 30 MB after 300 turns of 100 KB replies), and a resume reads it all (the first reply after a reload took
   * 1.8 s at 30 MB, 0.3 s at 1 MB). Past SESSION_HISTORY_BYTES the conversation moves to a new session that starts from
   * its summary, as the compact command does, and the old one is deleted. Checked once a complete turn is announced,
   * before the next turn starts (the Orchestrator's queue); the move runs in the background, and a turn sent meanwhile
   * waits for it (lock.waiting).
   */
  async boundHistory(turnId: string): Promise<void> {
    const id = this.deps.keeper.current?.id;
    const bytes = id && !this.isCompacting ? await this.deps.sessions.historyBytes(id) : undefined;
    if (bytes === undefined || bytes <= SESSION_HISTORY_BYTES) return;
    this.deps.logger.info(
      `The session's history is ${(bytes / 2 ** 20).toFixed(1)} MB, past its bound of ${SESSION_HISTORY_BYTES / 2 ** 20} MB: the conversation moves to a new session that starts from its summary`,
    );
    void this.compact(this.policy.keep, { turnId, orElse: 'or-recover' }).catch((err: unknown) =>
      this.deps.logger.warn(`Moving the conversation to a new session failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  /**
   * Summarizes the older messages and keeps the newest `keep` verbatim, holding the conversation's lock; undefined
   * when there is nothing to fold. `start.idle` resolves once no turn is running (a command waits for the running turn,
   * `start.after`, which is then not held by this lock). 'or-recover': when there is nothing to fold or the summary
   * fails, the session is still replaced, by one that starts from the last summary and the recent turns (as a lost
   * session is recovered).
   */
  compact(keep = this.policy.keep, start: CompactStart = {}): Promise<Compaction | undefined> {
    const { turnId, idle = Promise.resolve(), after, orElse } = start;
    const previous = this.pending[this.pending.length - 1]?.run ?? Promise.resolve(undefined);
    const run = (async (): Promise<Compaction | undefined> => {
      await previous.catch(() => undefined);
      await idle.catch(() => undefined);
      const { store, keeper } = this.deps;
      const recover = async (why: string): Promise<undefined> => {
        const id = keeper.current?.id ?? keeper.savedId;
        await keeper.retire(keeper.restartFromLog(`its history reached Baton's bound, and ${why}`), [id]);
        return undefined;
      };
      const mark = parseMark(store.getState(this.key(STATE_COMPACTION_MARK)));
      const messages = settledMessages(store.recentLog(LOG_SCAN));
      const plan = planCompaction(messages, keep, mark);
      if (!plan) return orElse ? recover('there was nothing to summarize') : undefined;
      let summary: string;
      try {
        summary = await summarize(
          this.deps.sessions,
          summaryModel(this.deps.settings().routing),
          summaryRequest(mark?.summary, plan.older),
          this.deps.summaryTimeoutMs ?? 60_000,
          this.deps.onUsage,
        );
      } catch (err) {
        if (!orElse || this.deps.closing()) throw err;
        this.deps.logger.warn(`Summarizing the conversation failed (${err instanceof Error ? err.message : String(err)}); starting from its recent turns`);
        return recover('summarizing it failed');
      }
      const compaction = compactionOf(summary, mark?.summary, plan);
      await keeper.replaceWithSummary(compactedContext(summary, plan.kept));
      store.setState(
        this.key(STATE_COMPACTION_MARK),
        JSON.stringify({ summary, atTurn: this.deps.checkpoints.settledTurns, throughLogId: plan.older[plan.older.length - 1]!.id }),
      );
      this.deps.logger.info(`Conversation compacted: ${plan.older.length} message(s) summarized, ${plan.kept.length} kept`);
      this.deps.emit({ type: 'compaction.applied', ...(turnId ? { turnId } : {}), compaction });
      return compaction;
    })();
    const entry: PendingCompaction = { run, ...(after ? { after } : {}) };
    this.pending.push(entry);
    void run
      .finally(() => {
        const at = this.pending.indexOf(entry);
        if (at >= 0) this.pending.splice(at, 1);
      })
      .catch(() => undefined);
    return run;
  }
}
