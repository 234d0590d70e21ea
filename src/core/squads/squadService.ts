// Squads: persistent teams of named specialist agents for one project folder, after IO. An agent is a charter and
// a model tier, not a session; delegating to it starts a worker (in the squad's folder, through the worker pool and
// its protected paths) whose system message carries the charter and the squad's decisions.
// Invariants: a squad's folder is realpath-resolved when the squad is created; what a worker is told about the
// squad is bounded (decisions and roster are clipped), so a long-lived squad cannot crowd out the task.
import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ToolFailure } from '../copilot/batonTool';
import type { Tier } from '../orchestrator/router';
import type { AgentTier, SquadAgentRow, SquadRow, SquadTaskRow } from '../store/areaTypes';
import { SquadsFullError } from '../store/squadsFullError';
import type { BatonStore } from '../store/types';
import type { ReplyTo, WorkerInfo, WorkerPool } from '../workers/workerPool';
import { DEFAULT_UNIVERSE, nextCharacter, UNIVERSES, universeKey } from './universes';

/** A squad problem worth telling the model as is (no such squad, name taken ...). */
export class SquadError extends ToolFailure {
  constructor(message: string) {
    super(message);
    this.name = 'SquadError';
  }
}

/** The store's refusal past its bound, told to the model as it is (a SquadError), not as a tool that failed. */
function told<T>(write: () => T): T {
  try {
    return write();
  } catch (err) {
    if (err instanceof SquadsFullError) throw new SquadError(err.message);
    throw err;
  }
}

export const TIER_OF: Record<AgentTier, Tier> = { high: 'premium', medium: 'standard', low: 'fast' };

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
/** How many decisions a worker, a recall and the summary carry (newest first). */
export const DECISIONS_IN_BRIEF = 20;
/**
 * The longest decision and charter a worker is told whole. The tools refuse longer ones (saying so) rather than keep
 * text no worker ever reads: a 2,000-character decision was accepted and cut to its first 400 in every brief.
 */
export const MAX_DECISION_CHARS = 400;
export const MAX_CHARTER_CHARS = 2000;

export interface SquadServiceOptions {
  store: BatonStore;
  pool: WorkerPool;
  /** The model of each routing tier, read when a task is delegated. */
  tiers: () => Record<Tier, string>;
  homeDir?: string;
}

export interface SquadTaskInfo extends SquadTaskRow {
  /** The worker's live state, when the pool still knows it. */
  worker_state?: WorkerInfo['state'];
}

export class SquadService {
  constructor(private readonly opts: SquadServiceOptions) {}

  private get store() {
    return this.opts.store.squads;
  }

  async create(args: { name: string; projectDir: string; universe?: string }): Promise<SquadRow> {
    const name = checkName(args.name, 'squad');
    if (this.store.getSquad(name)) throw new SquadError(`A squad named '${name}' already exists. Use squad_recall to see it, or pick another name.`);
    const universe = args.universe ? universeKey(args.universe) : DEFAULT_UNIVERSE;
    if (!universe) throw new SquadError(`Unknown universe '${args.universe}'. Choose one of: ${Object.keys(UNIVERSES).join(', ')}.`);
    const dir = await resolveProjectDir(args.projectDir, this.opts.homeDir);
    if (!told(() => this.store.createSquad({ name, project_dir: dir, universe }))) throw new SquadError(`A squad named '${name}' already exists.`);
    return this.get(name);
  }

  get(name: string): SquadRow {
    const squad = this.store.getSquad(name.trim());
    if (!squad) {
      const known = this.store.listSquads().map((s) => s.name);
      throw new SquadError(
        `No squad named '${name}'. ${known.length ? `Squads: ${known.join(', ')}.` : 'There are no squads yet; create one with squad_create.'}`,
      );
    }
    return squad;
  }

  list(): SquadRow[] {
    return this.store.listSquads();
  }

  agents(squad: string): SquadAgentRow[] {
    return this.store.listAgents(this.get(squad).name);
  }

  addAgent(args: { squad: string; role: string; charter: string; tier: AgentTier; name?: string }): SquadAgentRow {
    const squad = this.get(args.squad);
    const existing = this.store.listAgents(squad.name);
    const name = args.name
      ? checkName(args.name, 'agent')
      : nextCharacter(
          squad.universe,
          existing.map((a) => a.name),
        );
    if (!told(() => this.store.addAgent({ squad: squad.name, name, role: args.role.trim(), charter: args.charter.trim(), tier: args.tier }))) {
      throw new SquadError(`Squad '${squad.name}' already has an agent named '${name}'.`);
    }
    return this.agent(squad.name, name);
  }

  removeAgent(squad: string, name: string): void {
    const s = this.get(squad);
    if (!this.store.removeAgent(s.name, name)) throw new SquadError(`Squad '${s.name}' has no agent named '${name}'. ${this.roster(s.name)}`);
  }

  agent(squad: string, name: string): SquadAgentRow {
    const s = this.get(squad);
    const found = this.store.listAgents(s.name).find((a) => a.name.toLowerCase() === name.trim().toLowerCase());
    if (!found) throw new SquadError(`Squad '${s.name}' has no agent named '${name}'. ${this.roster(s.name)}`);
    return found;
  }

  logDecision(squad: string, decision: string, author?: string): void {
    this.store.logDecision(this.get(squad).name, decision.trim().slice(0, MAX_DECISION_CHARS), author ?? null);
  }

  decisions(squad: string, limit = DECISIONS_IN_BRIEF): string[] {
    return this.store.decisions(this.get(squad).name, limit).map((d) => clip(d.content, MAX_DECISION_CHARS));
  }

  decisionCount(squad: string): number {
    return this.store.countDecisions(this.get(squad).name);
  }

  /** Tasks the squad handed out, newest first, with the worker's live state. */
  tasks(squad: string, limit = 20): SquadTaskInfo[] {
    const workers = new Map(this.opts.pool.list().map((w) => [w.name, w]));
    return this.store.tasks(this.get(squad).name, limit).map((t) => ({ ...t, worker_state: workers.get(t.worker)?.state }));
  }

  /**
   * Starts a worker for the task: for the named agent, or (no name) the agent whose role and charter share the
   * most words with the task, or a generalist on the standard tier when the squad has no agents yet.
   */
  async delegate(args: {
    squad: string;
    task: string;
    agent?: string;
    replyTo?: ReplyTo;
    /** The caller stops waiting (its turn stopped): a question the worker's start raises is withdrawn. */
    signal?: AbortSignal;
  }): Promise<{ worker: WorkerInfo; agent?: SquadAgentRow; model: string }> {
    const squad = this.get(args.squad);
    const roster = this.store.listAgents(squad.name);
    const agent = args.agent ? this.agent(squad.name, args.agent) : pickAgent(roster, args.task);
    const model = this.opts.tiers()[TIER_OF[agent?.tier ?? 'medium']];
    const worker = await this.opts.pool.create({
      name: this.workerName(squad.name, agent?.name),
      workingDir: squad.project_dir,
      prompt: args.task,
      replyTo: args.replyTo,
      systemMessage: this.brief(squad, agent, roster),
      model,
      squad: squad.name,
      signal: args.signal,
    });
    this.store.recordTask({ worker: worker.name, squad: squad.name, agent: agent?.name ?? null, prompt: clip(args.task, 2000) });
    return { worker, agent, model };
  }

  delete(squad: string): SquadRow {
    const s = this.get(squad);
    this.store.deleteSquad(s.name);
    return s;
  }

  /** What a squad's worker is told beyond Baton's worker instructions. */
  brief(squad: SquadRow, agent: SquadAgentRow | undefined, roster: SquadAgentRow[]): string {
    const decisions = this.store.decisions(squad.name, DECISIONS_IN_BRIEF);
    const lines = [
      agent
        ? `## You are ${agent.name}, ${agent.role}, of squad '${squad.name}'\nYour charter:\n${clip(agent.charter, MAX_CHARTER_CHARS)}`
        : `## You work for squad '${squad.name}' (no specialist was named for this task)`,
      `Project folder: ${squad.project_dir}`,
    ];
    const mates = roster.filter((a) => a.name !== agent?.name);
    if (mates.length)
      lines.push(
        `## Teammates\n${mates
          .slice(0, 12)
          .map((a) => `- ${a.name}: ${clip(a.role, 80)}`)
          .join('\n')}`,
      );
    lines.push(
      decisions.length
        ? `## Squad decisions (newest first; follow them)\n${decisions.map((d) => `- ${clip(d.content, MAX_DECISION_CHARS)}`).join('\n')}`
        : '## Squad decisions\nNone logged yet.',
    );
    return lines.join('\n\n');
  }

  private workerName(squad: string, agent: string | undefined): string {
    const base = `${squad}-${agent ?? 'squad'}`
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .slice(0, 40);
    // Nor the name of a finished worker whose changes wait for review: the pool refuses it, and squad_delegate has no
    // name for the model to choose another (the agent was blocked until the user applied or discarded them).
    const active = new Set(this.opts.pool.listActive().map((w) => w.name));
    const taken = (name: string): boolean => active.has(name) || (this.opts.pool.changes?.has(name) ?? false);
    if (!taken(base)) return base;
    for (let i = 2; ; i++) if (!taken(`${base}-${i}`)) return `${base}-${i}`;
  }

  private roster(squad: string): string {
    const names = this.store.listAgents(squad).map((a) => a.name);
    return names.length ? `Agents: ${names.join(', ')}.` : 'It has no agents yet; add one with squad_add_agent.';
  }
}

function checkName(raw: string, what: string): string {
  const name = raw.trim();
  if (!NAME.test(name)) throw new SquadError(`Invalid ${what} name '${raw}': use 1-32 letters, digits, '.', '_' or '-', starting with a letter or digit.`);
  return name;
}

/** An absolute folder ("~" expanded), realpath-resolved; a SquadError when it is not an existing directory. */
export async function resolveProjectDir(input: string, home = homedir()): Promise<string> {
  const raw = input.trim();
  const expanded = raw === '~' ? home : raw.startsWith('~/') ? join(home, raw.slice(2)) : raw;
  if (!isAbsolute(expanded)) throw new SquadError(`project_dir must be an absolute path (got '${input}').`);
  const real = await realpath(expanded).catch(() => undefined);
  if (!real || !(await stat(real)).isDirectory()) throw new SquadError(`project_dir '${input}' is not an existing folder.`);
  return real;
}

function pickAgent(roster: SquadAgentRow[], task: string): SquadAgentRow | undefined {
  if (!roster.length) return undefined;
  const words = new Set(task.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
  let best = roster[0];
  let bestScore = -1;
  for (const a of roster) {
    const score = (`${a.role} ${a.charter}`.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).filter((w) => words.has(w)).length;
    if (score > bestScore) [best, bestScore] = [a, score];
  }
  return best;
}

export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
