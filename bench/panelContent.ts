// What the panel bench (and the trace scripts beside it) feed the page: a typical markdown answer of any size, the same
// text cut into deltas, and a long history. Deterministic, so every run measures the same thing.
import type { ChatMessage, Snapshot } from '../src/shared/protocol';

/** Deterministic PRNG so every run streams the same text in the same pieces. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function section(n: number): string {
  return `## Step ${n}: update the handler

The **handler** in \`src/handlers/h${n}.ts\` reads the *request* before it checks the session, so a missing cookie
throws instead of returning 401. See [the docs](https://example.com/docs/${n}) and https://example.com/issues/${n}.

- Move the check to the top of \`handle()\`
- Return early with a typed error
  - keep the log line
  - drop the retry

\`\`\`ts
export async function handle${n}(req: Request, session?: Session): Promise<Response> {
  // Reject before touching the body: the stream can only be read once.
  if (!session) return new Response("unauthorized", { status: 401 });
  const body = await req.json() as { id: number; name: string };
  return Response.json({ ok: true, id: body.id * ${n}, name: \`\${body.name}-${n}\` });
}
\`\`\`

| case | before | after |
|:-----|:------:|------:|
| no cookie | 500 | 401 |
| expired | 500 | 401 |

\`\`\`python
def check_${n}(resp):
    assert resp.status == 401, f"got {resp.status}"  # the fix
    return True
\`\`\`

`;
}

/** About 50 KB of the kind of markdown answers are made of. */
export function benchAnswer(bytes = 50_000): string {
  let text = '# Plan\n\nHere is what I will change, step by step.\n\n';
  for (let n = 1; text.length < bytes; n++) text += section(n);
  return text + 'Done. Run `npm test` to check.\n';
}

/** Cuts text into exactly `count` non-empty pieces at random places. */
export function cutIntoDeltas(text: string, count: number, seed = 1): string[] {
  const random = rng(seed);
  const cuts = new Set<number>();
  while (cuts.size < count - 1) cuts.add(1 + Math.floor(random() * (text.length - 1)));
  const sorted = [...cuts].sort((a, b) => a - b);
  const deltas: string[] = [];
  let at = 0;
  for (const cut of sorted) {
    deltas.push(text.slice(at, cut));
    at = cut;
  }
  deltas.push(text.slice(at));
  return deltas;
}

export function historySnapshot(count: number): Snapshot {
  const random = rng(7);
  const messages: ChatMessage[] = [];
  const base = Date.now() - count * 60_000;
  for (let i = 0; i < count; i++) {
    const ts = base + i * 60_000;
    if (i % 2 === 0) {
      messages.push({
        id: `m${i}`,
        role: 'user',
        content: `Question ${i}: why does the handler in h${i}.ts return 500 when the cookie is missing?`,
        status: 'complete',
        ts,
      });
    } else {
      const n = 1 + Math.floor(random() * 3);
      let content = `Short answer for ${i}.\n\n`;
      for (let k = 0; k < n; k++) content += section(i * 10 + k);
      messages.push({
        id: `m${i}`,
        role: i % 10 === 9 ? 'background' : 'assistant',
        source: i % 10 === 9 ? `worker-${i}` : undefined,
        content,
        status: 'complete',
        ts,
        route: { tier: 'standard', model: 'gpt-4.1', reason: 'classifier' },
        usage: { inputTokens: 1000 + i, outputTokens: 300 + i },
      });
    }
  }
  return { messages, workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };
}
