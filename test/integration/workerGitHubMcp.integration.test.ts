// The runtime's built-in GitHub MCP server and workers, against the REAL runtime, Bubblewrap and a scripted model,
// built as the extension builds Baton. A worker session gets that server's tools like the orchestrator does; the
// runtime calls it from its own process with the session's GitHub token (never the worker's shell), at the
// read-only endpoint. Measured here: the runtime connects it only when the worker's sandbox network lets the
// endpoint's host through (the Copilot API's host; in these tests the scripted server on loopback). Baton goes
// further and by GitHub's API: with baton.workers.network 'deny', or host lists that keep api.github.com out, the
// worker's session has the server disabled, whatever the runtime would have let through.
import * as assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GITHUB_MCP_SERVER } from '../../src/core/copilot/sessionConfig';
import type { WorkerSettings } from '../../src/core/workers/workerTypes';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import type { RecordedRequest } from '../support/scriptedModelServer';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

const ISSUE_TOOL = `${GITHUB_MCP_SERVER}-get_issue`;
/** The scripted server's host: where the runtime finds the GitHub MCP endpoint in these tests. */
const ENDPOINT_HOST = '127.0.0.1';

interface Seen {
  /** The GitHub MCP tools offered in each of the worker's model requests. */
  offered: string[][];
  /** MCP methods the runtime sent while the worker's session started and ran. */
  mcp: string[];
  /** The worker's own tools were offered (the session itself is whole). */
  ownTools: boolean;
}

describe("workers and the runtime's GitHub MCP server (real runtime, Bubblewrap, scripted model)", function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let project: string;

  const backgroundDone = (): number => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;
  const mine = (worker: string) => (r: RecordedRequest) => r.systemText.includes(`You are '${worker}'`);

  /** Runs one worker to its reply, then the orchestrator's answer to its result, under these worker settings. */
  const runWorker = async (worker: string, settings: Partial<WorkerSettings>): Promise<Seen> => {
    Object.assign(core.workerSettings, { network: undefined, allowedHosts: undefined, blockedHosts: undefined }, settings);
    core.server.on({ predicate: mine(worker), name: `${worker} reply` }, { text: `${worker}: done` });
    core.server.on({ lastUserIncludes: `[Background task completed] Worker '${worker}'`, name: `result of ${worker}` }, { text: `noted ${worker}` });
    const from = core.server.requests.length;
    const before = backgroundDone();
    await core.pool.create({ name: worker, workingDir: project, prompt: `TASK-${worker}: say done`, isolation: 'read-only' });
    await waitFor(`${worker} to finish`, () => core.pool.list().find((w) => w.name === worker && w.state === 'done'), 60_000);
    const requests = core.server.chatRequests().filter(mine(worker));
    // The orchestrator's turn on the result comes after the worker's last request: what came before is the worker's.
    const last = requests.at(-1)!.seq;
    const mcp = core.server.requests.slice(from).filter((r) => r.kind === 'mcp' && r.seq < last);
    await waitFor(`the result of ${worker}`, () => backgroundDone() > before);
    return {
      offered: requests.map((r) => r.tools.filter((t) => t.startsWith(`${GITHUB_MCP_SERVER}-`))),
      mcp: mcp.map((r) => String((r.body as { method?: unknown } | undefined)?.method)),
      ownTools: requests.every((r) => r.tools.includes('bash')),
    };
  };

  beforeEach(async () => {
    core = await startCore();
    project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
    core.workerSettings.trustWorkingDir = true;
    core.server.setMcpTools([{ name: 'get_issue', description: 'Gets an issue', inputSchema: { type: 'object', properties: { number: { type: 'number' } } } }]);
  });

  afterEachCore(() => core);

  it("a worker whose network reaches GitHub's API gets the server's read-only tools, fetched by the runtime with the session's token", async () => {
    const open = await runWorker('reader', { network: 'allow' });
    const listed = await runWorker('lister', { network: 'allow', allowedHosts: [ENDPOINT_HOST, 'api.github.com'] });
    for (const seen of [open, listed]) {
      assert.deepEqual(seen.offered, [[ISSUE_TOOL]], "the worker's model is offered the server's tool");
      assert.ok(seen.mcp.includes('tools/list'), `the worker's session connected it: ${seen.mcp.join(', ')}`);
    }
    const calls = core.server.requests.filter((r) => r.path.startsWith('/mcp'));
    assert.deepEqual(
      [...new Set(calls.map((r) => `${r.path} ${r.headers.authorization}`))],
      ['/mcp/readonly Bearer fake'],
      "the read-only endpoint, with the session's token (the fixture's), from the runtime's process",
    );
    assert.deepEqual(core.server.pending(), [], 'every scripted reply was used');
  });

  it("'deny', or host lists that keep GitHub's API out: no GitHub tool and no connection, even where the runtime would connect", async () => {
    const denied = await runWorker('offline', { network: 'deny' });
    // The runtime alone would connect these two (their lists let the endpoint through, measured): Baton disables it.
    const elsewhere = await runWorker('registry-only', { network: 'allow', allowedHosts: [ENDPOINT_HOST, 'registry.example.test'] });
    const blocked = await runWorker('no-github', { network: 'allow', blockedHosts: ['*.github.com'] });
    assert.deepEqual(
      [denied, elsewhere, blocked].map((s) => [s.offered, s.mcp, s.ownTools]),
      [
        [[[]], [], true],
        [[[]], [], true],
        [[[]], [], true],
      ],
      "each worker's model is offered its own tools and no GitHub MCP tool; its session never connected the server",
    );
    assert.deepEqual(core.server.pending(), [], 'every scripted reply was used');
  });
});
