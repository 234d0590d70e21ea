// The squads section of the orchestrator's system message: bounded however many squads exist, so it never crowds
// out the rest; squad_status and squad_recall give the full picture.
import type { BatonStore } from '../store/types';

const HEADER = '## Squads\nPersistent specialist teams (see squad_recall / squad_delegate):';
const MAX_SQUADS = 10;

/** '' when there are no squads. */
export function getSquadSummary(store: BatonStore, maxChars = 1500): string {
  const squads = store.squads.listSquads();
  if (!squads.length) return '';
  const lines = [HEADER];
  let used = HEADER.length;
  let shown = 0;
  for (const s of squads.slice(0, MAX_SQUADS)) {
    const agents = store.squads.listAgents(s.name);
    const roster = agents.length ? agents.map((a) => `${a.name} (${a.role})`).join(', ') : 'no agents yet';
    const line = `- ${s.name}: ${s.project_dir} — ${roster.length > 200 ? `${roster.slice(0, 199)}…` : roster}; ${store.squads.countDecisions(s.name)} decision(s)`;
    if (used + line.length + 1 > maxChars - 60) break;
    lines.push(line);
    used += line.length + 1;
    shown++;
  }
  if (shown < squads.length) lines.push(`(${squads.length - shown} more; use squad_status.)`);
  return lines.join('\n');
}
