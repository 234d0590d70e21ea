// The orchestrator's squad tools, with IO's names and meaning. Arguments come from the model: each is checked by its
// zod schema, and a squad problem (no such squad, name taken) goes back as a clear failure the model can act on.
import { z } from 'zod';
import { type BatonTool, type ToolJournal, toolMaker } from '../copilot/batonTool';
import { AGENT_TIERS, type AgentTier } from '../store/areaTypes';
import type { ReplyTo } from '../workers/workerPool';
import { analyzeProject, formatAnalysis } from './squadAnalyze';
import { clip, DECISIONS_IN_BRIEF, MAX_CHARTER_CHARS, MAX_DECISION_CHARS, resolveProjectDir, TIER_OF, type SquadService } from './squadService';
import { UNIVERSES } from './universes';

export interface SquadToolOptions {
  replyTo?: () => ReplyTo | undefined;
  journal?: ToolJournal;
  /** The calling turn's signal: a question a worker's start raises goes when the turn stops. */
  signal?: () => AbortSignal | undefined;
}

const squadName = z.string().trim().min(1).max(32).describe('The squad\u2019s name, e.g. "webshop".');
const agentName = z.string().trim().min(1).max(32).describe('The agent\u2019s character name, as squad_agents lists it (e.g. "Spengler").');
const dir = z.string().trim().min(1).describe('Absolute path of the project folder ("~" allowed).');
const tier = z
  .enum(AGENT_TIERS as [AgentTier, ...AgentTier[]])
  .describe('high: hard design and review work (premium model); medium: everyday coding (standard); low: quick chores (fast).');

export function createSquadTools(squads: SquadService, opts: SquadToolOptions = {}): BatonTool[] {
  const tool = toolMaker(opts.journal);

  return [
    tool(
      'squad_create',
      'Create a persistent squad for a project folder: a team of named specialist agents you add with squad_add_agent. ' +
        `Optionally pick the universe their character names come from (${Object.keys(UNIVERSES).join(', ')}).`,
      z.object({
        name: squadName,
        project_dir: dir,
        universe: z.string().trim().min(1).max(40).optional().describe('Where agent names come from (default ghostbusters).'),
      }),
      async (a) => {
        const s = await squads.create({ name: a.name, projectDir: a.project_dir, universe: a.universe });
        return `Squad '${s.name}' created for ${s.project_dir} (universe: ${s.universe}). Next: squad_analyze the folder, then squad_add_agent for each specialist it needs.`;
      },
      true,
    ),
    tool(
      'squad_analyze',
      'Analyze a project folder (or a squad\u2019s, by its name): languages, frameworks, package managers, test tools, CI/CD and containers, read from its manifest files. Use it to decide which specialists a squad needs.',
      z.object({ project_dir: z.string().trim().min(1).describe('Absolute path of the project folder, or the name of a squad.') }),
      async (a) => {
        const squadDir = squads.list().find((s) => s.name === a.project_dir)?.project_dir;
        return formatAnalysis(await analyzeProject(squadDir ?? (await resolveProjectDir(a.project_dir))));
      },
    ),
    tool(
      'squad_add_agent',
      'Add a named specialist agent to a squad: it gets the next character name of the squad\u2019s universe (unless you give one), a free-form role title, a charter (responsibilities, conventions, what to check) and a model tier.',
      z.object({
        squad: squadName,
        role_title: z.string().trim().min(1).max(80).describe('e.g. "Frontend Architect", "Test Engineer".'),
        charter: z
          .string()
          .trim()
          .min(1)
          .max(MAX_CHARTER_CHARS, `at most ${MAX_CHARTER_CHARS} characters: what a worker is told whole`)
          .describe(`What this agent is responsible for and how it works (at most ${MAX_CHARTER_CHARS} characters).`),
        model_tier: tier,
        name: agentName.optional().describe('A character name of your own (default: the universe\u2019s next one).'),
      }),
      (a) => {
        const agent = squads.addAgent({ squad: a.squad, role: a.role_title, charter: a.charter, tier: a.model_tier, name: a.name });
        return `Added ${agent.name} (${agent.role}, ${agent.tier} tier) to squad '${agent.squad}'. Delegate to them with squad_delegate(squad, task, agent_name: "${agent.name}").`;
      },
      true,
    ),
    tool('squad_agents', 'List a squad\u2019s agents: name, role, model tier and charter.', z.object({ squad: squadName }), (a) => {
      const agents = squads.agents(a.squad);
      if (!agents.length) return `Squad '${a.squad}' has no agents yet; add them with squad_add_agent.`;
      return [
        `Squad '${a.squad}' (${agents.length} agent${agents.length === 1 ? '' : 's'}):`,
        ...agents.map((g) => `- ${g.name} — ${g.role} (${g.tier} tier): ${clip(g.charter, 300)}`),
      ].join('\n');
    }),
    tool(
      'squad_remove_agent',
      'Remove a named agent from a squad (its running tasks, if any, go on).',
      z.object({ squad: squadName, agent_name: agentName }),
      (a) => {
        squads.removeAgent(a.squad, a.agent_name);
        return `Removed ${a.agent_name} from squad '${a.squad}'.`;
      },
      true,
    ),
    tool(
      'squad_delegate',
      'Delegate a task to a squad: to the agent named in agent_name, or (without it) to the agent whose role fits best. A background worker starts in the squad\u2019s folder, ' +
        'briefed with the agent\u2019s charter and the squad\u2019s decisions, on the model of the agent\u2019s tier. Returns at once; the result arrives later as a "[Background task completed]" message.',
      z.object({ squad: squadName, task: z.string().trim().min(1).describe('A complete, self-contained task.'), agent_name: agentName.optional() }),
      async (a) => {
        const { worker, agent, model } = await squads.delegate({
          squad: a.squad,
          task: a.task,
          agent: a.agent_name,
          replyTo: opts.replyTo?.(),
          signal: opts.signal?.(),
        });
        const who = agent ? `${agent.name} (${agent.role})` : `a generalist of squad '${a.squad}'`;
        return `On it — ${who} is working as worker '${worker.name}' in ${worker.workingDir} on ${model}. The result arrives as a [Background task completed] message; tell the user it is under way.`;
      },
      true,
    ),
    tool(
      'squad_log_decision',
      `Log a decision for a squad (a convention, a choice of library, a rule), in at most ${MAX_DECISION_CHARS} characters. Every worker the squad starts from now on is told its newest ${DECISIONS_IN_BRIEF} decisions.`,
      z.object({
        squad: squadName,
        decision: z
          .string()
          .trim()
          .min(1)
          .max(MAX_DECISION_CHARS, `at most ${MAX_DECISION_CHARS} characters: a worker is told each decision whole; log a longer one as several`),
        author: z.string().trim().max(40).optional().describe('Who decided (an agent or "user").'),
      }),
      (a) => {
        squads.logDecision(a.squad, a.decision, a.author);
        const count = squads.decisionCount(a.squad);
        const past =
          count > DECISIONS_IN_BRIEF ? ` Workers are told the newest ${DECISIONS_IN_BRIEF} of its ${count} decisions: the oldest is no longer among them.` : '';
        return `Logged for squad '${a.squad}': ${clip(a.decision, 200)}${past}`;
      },
      true,
    ),
    tool(
      'squad_recall',
      'Recall a squad\u2019s context: its folder, agents, recent tasks and decisions (the newest, bounded).',
      z.object({ squad: squadName }),
      (a) => {
        const s = squads.get(a.squad);
        const agents = squads.agents(s.name);
        const decisions = squads.decisions(s.name, DECISIONS_IN_BRIEF);
        const tasks = squads.tasks(s.name, 5);
        return [
          `Squad '${s.name}' — ${s.project_dir} (universe ${s.universe}, since ${s.created_at})`,
          agents.length ? `Agents:\n${agents.map((g) => `- ${g.name} — ${g.role} (${g.tier} → ${TIER_OF[g.tier]})`).join('\n')}` : 'Agents: none yet.',
          decisions.length ? `Decisions (newest first):\n${decisions.map((d) => `- ${d}`).join('\n')}` : 'Decisions: none logged.',
          tasks.length
            ? `Recent tasks:\n${tasks.map((t) => `- ${t.worker}${t.agent ? ` (${t.agent})` : ''}: ${t.worker_state ?? 'finished'} — ${clip(t.prompt, 120)}`).join('\n')}`
            : 'Tasks: none yet.',
        ].join('\n\n');
      },
    ),
    tool('squad_status', 'List every squad with its folder, agents, running tasks and number of decisions.', z.object({}), () => {
      const all = squads.list();
      if (!all.length) return 'No squads yet. Create one with squad_create.';
      return all
        .map((s) => {
          const running = squads.tasks(s.name).filter((t) => t.worker_state === 'running' || t.worker_state === 'idle');
          const agents = squads.agents(s.name);
          return `- ${s.name}: ${s.project_dir} — ${agents.length} agent(s)${agents.length ? ` (${agents.map((g) => g.name).join(', ')})` : ''}, ${running.length} running task(s), ${squads.decisionCount(s.name)} decision(s)`;
        })
        .join('\n');
    }),
    tool(
      'squad_delete',
      'Delete a squad with its agents and decisions (workers it started go on until they finish).',
      z.object({ squad: squadName }),
      (a) => `Deleted squad '${squads.delete(a.squad).name}'.`,
      true,
    ),
  ];
}
