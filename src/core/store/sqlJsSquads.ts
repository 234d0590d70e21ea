// Squads on the store's tables: a squad per project folder, its agents (keyed by name within the squad), its
// decision log and the tasks it handed to workers (so usage and the Squads view can attribute a worker to it).
import { z } from 'zod';
import { AGENT_TIERS, type SquadAgentRow, type SquadDecisionRow, type SquadRow, type SquadStore, type SquadTaskRow } from './areaTypes';
import { SQUAD_AGENTS_MAX, SQUADS_MAX } from './bounds';
import { sqliteTimestamp } from './rowSchemas';
import { SquadsFullError } from './squadsFullError';
import type { TableAccess } from './sqlJsMemories';

const text = z.string();
const squadSchema = z.object({ name: text, project_dir: text, universe: text, created_at: text }) satisfies z.ZodType<SquadRow>;
const agentSchema = z.object({
  squad: text,
  name: text,
  role: text,
  charter: text,
  tier: z.enum(AGENT_TIERS as [SquadAgentRow['tier'], ...SquadAgentRow['tier'][]]),
  created_at: text,
}) satisfies z.ZodType<SquadAgentRow>;
const decisionSchema = z.object({ id: z.number().int(), squad: text, content: text, author: text.nullable(), ts: text }) satisfies z.ZodType<SquadDecisionRow>;
const taskSchema = z.object({ worker: text, squad: text, agent: text.nullable(), prompt: text, started_at: text }) satisfies z.ZodType<SquadTaskRow>;

export class SqlJsSquads implements SquadStore {
  constructor(private readonly access: TableAccess) {}

  createSquad(row: { name: string; project_dir: string; universe: string }): boolean {
    const squads = this.listSquads();
    if (squads.some((s) => s.name.toLowerCase() === row.name.toLowerCase())) return false;
    if (squads.length >= SQUADS_MAX) throw new SquadsFullError(SQUADS_MAX);
    this.access.commit({ op: 'createSquad', ...row, ts: sqliteTimestamp() });
    return true;
  }

  /** By name in any case, as agents are: 'Shop' is the squad 'shop' (two of them had shared their workers' names). */
  getSquad(name: string): SquadRow | undefined {
    const wanted = name.toLowerCase();
    return this.listSquads().find((s) => s.name.toLowerCase() === wanted);
  }

  listSquads(): SquadRow[] {
    return this.rows('squads', 'SELECT name, project_dir, universe, created_at FROM squads ORDER BY created_at, name', [], squadSchema);
  }

  deleteSquad(name: string): boolean {
    const squad = this.getSquad(name);
    if (!squad) return false;
    this.access.commit({ op: 'deleteSquad', name: squad.name });
    return true;
  }

  addAgent(row: Omit<SquadAgentRow, 'created_at'>): boolean {
    const agents = this.listAgents(row.squad);
    if (agents.some((a) => a.name.toLowerCase() === row.name.toLowerCase())) return false;
    if (agents.length >= SQUAD_AGENTS_MAX) throw new SquadsFullError(SQUAD_AGENTS_MAX, row.squad);
    this.access.commit({ op: 'addAgent', ...row, ts: sqliteTimestamp() });
    return true;
  }

  removeAgent(squad: string, name: string): boolean {
    const agent = this.listAgents(squad).find((a) => a.name.toLowerCase() === name.toLowerCase());
    if (!agent) return false;
    this.access.commit({ op: 'removeAgent', squad, name: agent.name });
    return true;
  }

  listAgents(squad: string): SquadAgentRow[] {
    return this.rows(
      'squad_agents',
      'SELECT squad, name, role, charter, tier, created_at FROM squad_agents WHERE squad = ? ORDER BY created_at, rowid',
      [squad],
      agentSchema,
    );
  }

  logDecision(squad: string, content: string, author: string | null): void {
    this.access.commit({ op: 'logDecision', squad, content, author, ts: sqliteTimestamp() });
  }

  decisions(squad: string, limit: number): SquadDecisionRow[] {
    return this.rows(
      'squad_decisions',
      'SELECT id, squad, content, author, ts FROM squad_decisions WHERE squad = ? ORDER BY id DESC LIMIT ?',
      [squad, limit],
      decisionSchema,
    );
  }

  countDecisions(squad: string): number {
    return this.access.read(() => this.access.tables.number('SELECT count(*) FROM squad_decisions WHERE squad = ?', [squad]), 0);
  }

  recordTask(row: Omit<SquadTaskRow, 'started_at'>): void {
    this.access.commit({ op: 'recordTask', ...row, ts: sqliteTimestamp() });
  }

  tasks(squad: string, limit: number): SquadTaskRow[] {
    return this.rows(
      'squad_tasks',
      'SELECT worker, squad, agent, prompt, started_at FROM squad_tasks WHERE squad = ? ORDER BY started_at DESC LIMIT ?',
      [squad, limit],
      taskSchema,
    );
  }

  private rows<T>(table: string, sql: string, params: Array<string | number>, schema: z.ZodType<T>): T[] {
    return this.access.read(() => this.access.tables.rows(table, sql, params, schema), []);
  }
}
