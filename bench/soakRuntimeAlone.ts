// The soak's comparison: the Copilot runtime alone doing the soak's work with no Baton around it, in a process of
// its own (its own scripted server, SDK client and runtime), driven turn by turn by the soak over IPC so both see
// the same machine. Same orchestrator session config (system message, tool schemas, excluded tools), the same
// scripted answers, worker sessions created, run and deleted at the same pace, compacted as often.
// Run by soak.bench.ts with `node --import tsx`; not a bench section of its own.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CopilotSession, SessionConfig, Tool } from '@github/copilot-sdk';
import { CopilotClient, hermeticEnv } from '../test/support/copilotHarness';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';

/** What the soak sends. */
export type RawCommand =
  | { cmd: 'start'; root: string; config: SerializableConfig }
  | { cmd: 'turn'; i: number }
  | { cmd: 'task'; n: number }
  | { cmd: 'compact' }
  | { cmd: 'settle' }
  | { cmd: 'clear' }
  | { cmd: 'stop' };

/** The orchestrator's session config with its functions taken out (tools as JSON schemas). */
export type SerializableConfig = Omit<SessionConfig, 'tools' | 'onPermissionRequest'> & {
  tools: Array<{ name: string; description?: string; parameters?: unknown }>;
};

export type RawReply = { ok: true; ms?: number; pid?: number } | { ok: false; error: string };

/** The soak's scripted answers, for Baton's server and this one alike. */
export function scriptSoak(server: ScriptedModelServer, readme: string): void {
  server.always(
    { lastUserIncludes: 'SOAK turn', afterToolResult: false, systemIncludes: 'You are Baton' },
    { toolCalls: [{ name: 'recall', arguments: { keyword: 'soak' } }] },
  );
  server.always(
    { lastUserIncludes: 'SOAK turn', afterToolResult: true, systemIncludes: 'You are Baton' },
    { text: 'Nothing remembered about that yet.', chunks: 3 },
  );
  // A worker: reads a file, then reports; its result is answered by the orchestrator.
  server.always({ lastUserIncludes: 'SOAK task', afterToolResult: false }, { toolCalls: [{ name: 'view', arguments: { path: readme } }] });
  server.always({ lastUserIncludes: 'SOAK task', afterToolResult: true }, { text: 'Read the README. Nothing to change.', chunks: 3 });
  server.always({ lastUserIncludes: '[Background task completed]' }, { text: 'Noted.' });
  // Compaction's summary request (the runtime asks for one; its prompt says so).
  server.always(
    { predicate: (r) => /summar/i.test(JSON.stringify(r.messages.at(-1)?.content ?? '')) },
    { text: '<overview>Soak turns about soak.</overview>' },
  );
}

const ENV_DIRS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'GH_CONFIG_DIR', 'TMPDIR', 'COPILOT_HOME'];

class RuntimeAlone {
  private server!: ScriptedModelServer;
  private client!: InstanceType<typeof CopilotClient>;
  private main!: CopilotSession;
  private project!: string;
  /** Worker results waiting to be told to the main session (as Baton queues them), before the next turn. */
  private readonly results: string[] = [];
  private readonly workers = new Set<Promise<void>>();

  async start(root: string, config: SerializableConfig): Promise<number> {
    this.server = await ScriptedModelServer.start();
    const env = hermeticEnv(this.server.url, root);
    for (const k of ENV_DIRS) await mkdir(env[k]!, { recursive: true });
    this.project = join(env.HOME!, 'project');
    await mkdir(this.project, { recursive: true });
    await writeFile(join(this.project, 'README.md'), '# soak\n');
    scriptSoak(this.server, join(this.project, 'README.md'));
    this.client = new CopilotClient({ env, baseDirectory: env.COPILOT_HOME, gitHubToken: 'fake', workingDirectory: this.project, logLevel: 'error' });
    await this.client.start();
    const tools: Tool[] = config.tools.map((t) => ({ ...t, skipPermission: true, handler: () => 'Nothing remembered about that.' }) as Tool);
    this.main = await this.client.createSession({
      ...config,
      configDirectory: join(root, 'sessions'),
      tools,
      onPermissionRequest: (r) => (r.kind === 'custom-tool' ? { kind: 'approve-once' } : { kind: 'reject' }),
    });
    return (this.client as unknown as { cliProcess: { pid: number } }).cliProcess.pid;
  }

  async turn(i: number): Promise<number> {
    // Baton runs a worker's result as a turn of its own, queued before the next message.
    for (let r = this.results.shift(); r; r = this.results.shift()) await this.main.sendAndWait({ prompt: r }, 60_000);
    const t = performance.now();
    await this.main.sendAndWait({ prompt: `SOAK turn ${i}: anything about soak?` }, 60_000);
    return performance.now() - t;
  }

  task(n: number): void {
    const run = (async () => {
      const worker = await this.client.createSession({
        clientName: 'runtime-alone-worker',
        streaming: true,
        workingDirectory: this.project,
        onPermissionRequest: (r) => (r.kind === 'read' ? { kind: 'approve-once' } : { kind: 'reject' }),
      });
      const reply = await worker.sendAndWait({ prompt: `SOAK task ${n}: read the README` }, 120_000);
      await worker.disconnect();
      await this.client.deleteSession(worker.sessionId);
      this.results.push(`[Background task completed] Worker 'raw-${n}' finished: ${reply?.data.content ?? ''}`);
    })();
    this.workers.add(run);
    void run.finally(() => this.workers.delete(run)).catch(() => undefined);
  }

  async compact(): Promise<void> {
    await this.main.rpc.history.compact();
  }

  async settle(): Promise<void> {
    while (this.workers.size) await Promise.all([...this.workers]);
    for (let r = this.results.shift(); r; r = this.results.shift()) await this.main.sendAndWait({ prompt: r }, 60_000);
  }

  clear(): void {
    this.server.requests.length = 0;
  }

  async stop(): Promise<void> {
    await this.client.stop().catch(() => this.client.forceStop());
    await this.server.close();
  }
}

if (process.env.BATON_SOAK_RUNTIME_ALONE === '1' && process.send) {
  const alone = new RuntimeAlone();
  process.on('message', (m: RawCommand) => {
    const answer = async (): Promise<RawReply> => {
      switch (m.cmd) {
        case 'start':
          return { ok: true, pid: await alone.start(m.root, m.config) };
        case 'turn':
          return { ok: true, ms: await alone.turn(m.i) };
        case 'task':
          alone.task(m.n);
          return { ok: true };
        case 'compact':
          await alone.compact();
          return { ok: true };
        case 'settle':
          await alone.settle();
          return { ok: true };
        case 'clear':
          alone.clear();
          return { ok: true };
        case 'stop':
          await alone.stop();
          return { ok: true };
      }
    };
    answer().then(
      (reply) => {
        process.send!(reply);
        if (m.cmd === 'stop') process.exit(0);
      },
      (err: unknown) => process.send!({ ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
  });
}
