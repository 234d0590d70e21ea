// The Baton: Show Usage page: a chart of the last 30 days and the totals by day, conversation, worker and squad.
// Static HTML (no script at all): its CSP admits only its own stylesheet, by nonce. Every figure is escaped text.
// No `vscode` import, so unit tests render it as the view does.
import { plural, premiumFigure, premiumRequests, tokens, type UsageReport, type UsageTotal } from '../core/control/usageTotals';

// A day key names a calendar day of the user's (formatted as such, in UTC); a start is a moment, in the user's time zone.
const DATE = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const STARTED = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function dayLabel(day: string): string {
  return DATE.format(new Date(`${day}T00:00:00Z`));
}

/**
 * A conversation as the table names it: its title while it is in the list ('' is a new one), and when it started (its
 * key, ISO); one deleted since (or started over by an earlier version) is known by that time alone; the one kept
 * before conversations were told apart is "earlier".
 */
export function conversationLabel(key: string, title?: string): string {
  const t = Date.parse(key);
  const started = Number.isFinite(t) ? `started ${STARTED.format(new Date(t))}` : 'earlier conversations';
  return title === undefined ? started : `${title || 'New conversation'} (${started})`;
}

function cells(t: UsageTotal): string {
  return `<td class="num">${t.requests}</td><td class="num">${premiumFigure(t.premiumRequests)}</td><td class="num">${tokens(t.inputTokens)}</td><td class="num">${tokens(t.outputTokens)}</td>`;
}

const HEAD = '<th class="num">Requests</th><th class="num">Premium requests</th><th class="num">Input tokens</th><th class="num">Output tokens</th>';

function table(id: string, title: string, first: string, rows: Array<{ label: string; total: UsageTotal }>, empty: string): string {
  const body = rows.length
    ? rows.map((r) => `<tr><th scope="row">${esc(r.label)}</th>${cells(r.total)}</tr>`).join('')
    : `<tr><td colspan="5" class="empty">${esc(empty)}</td></tr>`;
  return `<section><h2>${esc(title)}</h2><table data-testid="${id}"><thead><tr><th>${esc(first)}</th>${HEAD}</tr></thead><tbody>${body}</tbody></table></section>`;
}

/** Premium requests per day as bars (requests when nothing was premium), each with its figures as a tooltip. */
function chart(report: UsageReport): string {
  const premium = report.days.some((d) => d.premiumRequests > 0);
  const value = (d: UsageTotal) => (premium ? d.premiumRequests : d.requests);
  // The real highest (a month under one premium request a day has its bars and caption by it); 0 only when all are.
  const max = Math.max(0, ...report.days.map(value));
  const width = 12;
  const gap = 4;
  const height = 80;
  const bars = report.days
    .map((d, i) => {
      const h = max > 0 ? Math.round((value(d) / max) * height) : 0;
      const label = `${dayLabel(d.day)}: ${plural(d.requests, 'request')}, ${premiumFigure(d.premiumRequests)} premium, ${tokens(d.inputTokens)} in / ${tokens(d.outputTokens)} out tokens`;
      return `<rect class="bar" data-day="${d.day}" x="${i * (width + gap)}" y="${height - h}" width="${width}" height="${Math.max(h, value(d) > 0 ? 1 : 0)}"><title>${esc(label)}</title></rect>`;
    })
    .join('');
  const w = report.days.length * (width + gap);
  const what = premium ? 'Premium requests' : 'Requests';
  return (
    `<figure><svg role="img" aria-label="${what} per day, last ${report.days.length} days" width="${w}" height="${height + 1}" viewBox="0 0 ${w} ${height + 1}" data-testid="usage-chart">` +
    `<line class="axis" x1="0" y1="${height + 0.5}" x2="${w}" y2="${height + 0.5}"></line>${bars}</svg>` +
    `<figcaption>${what} per day, ${dayLabel(report.days[0]!.day)} – ${dayLabel(report.days[report.days.length - 1]!.day)}. Highest: ${premiumFigure(max)}.</figcaption></figure>`
  );
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 20px 20px; }
h1 { font-size: 1.4em; font-weight: 600; }
h2 { font-size: 1.1em; font-weight: 600; margin: 1.4em 0 0.4em; }
p.note { color: var(--vscode-descriptionForeground); max-width: 60em; }
table { border-collapse: collapse; min-width: 34em; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--vscode-panel-border, transparent); text-align: left; font-weight: normal; }
thead th { color: var(--vscode-descriptionForeground); }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.empty { color: var(--vscode-descriptionForeground); font-style: italic; }
.bar { fill: var(--vscode-charts-blue, #3794ff); }
.axis { stroke: var(--vscode-panel-border, #888); }
figure { margin: 0; }
figcaption { color: var(--vscode-descriptionForeground); margin-top: 4px; }
`;

export function renderUsageHtml(report: UsageReport, page: { cspSource: string; nonce: string }): string {
  const dayRows = [...report.days]
    .reverse()
    .filter((d) => d.requests || d.inputTokens || d.outputTokens)
    .map((d) => ({ label: dayLabel(d.day), total: d }));
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${page.nonce}'; img-src ${page.cspSource};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Baton Usage</title>
<style nonce="${page.nonce}">${STYLE}</style>
</head>
<body>
<h1>Baton usage</h1>
<p class="note">A request is one message to a model (a turn of the conversation, a task or follow-up of a worker); it costs its
model's premium-request multiplier once, however many tool rounds it takes. Failed and stopped turns count with what they
used. A squad's requests are its workers' (they are not added twice in the totals).</p>
<p data-testid="usage-total">Last ${report.days.length} days: ${plural(report.total.requests, 'request')}, ${premiumRequests(report.total.premiumRequests)}, ${tokens(report.total.inputTokens)} input / ${tokens(report.total.outputTokens)} output tokens.</p>
${chart(report)}
${table('usage-days', 'By day', 'Day', dayRows, 'No usage in the last 30 days.')}
${table(
  'usage-conversations',
  'By conversation',
  'Conversation',
  report.conversations.map((c) => ({ label: conversationLabel(c.key, c.title), total: c })),
  'No conversation used a model.',
)}
${table(
  'usage-workers',
  'By worker',
  'Worker',
  report.workers.map((w) => ({ label: w.key, total: w })),
  'No worker used a model.',
)}
${table(
  'usage-squads',
  'By squad',
  'Squad',
  report.squads.map((s) => ({ label: s.key, total: s })),
  'No squad used a model.',
)}
</body>
</html>`;
}
