import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PermissionHandler, PermissionRequest } from '@github/copilot-sdk' with { 'resolution-mode': 'require' };
import type { PermissionDecision, PermissionPrompt } from '../../src/shared/protocol';
import { keptApproval } from '../../src/shared/permissionAsk';
import { MemoryLogger } from '../../src/core/util/logger';
import { ProtectedPaths } from '../../src/core/workers/protectedPaths';
import { createWorkerPermissionHandler, pathLikeTokens, type PermissionBroker } from '../../src/core/workers/workerPermissions';

class FakeBroker implements PermissionBroker {
  readonly asked: PermissionPrompt[] = [];
  readonly signals: Array<AbortSignal | undefined> = [];
  constructor(public answer: PermissionDecision | (() => Promise<PermissionDecision>) = 'deny') {}
  async ask(prompt: PermissionPrompt, signal?: AbortSignal): Promise<PermissionDecision> {
    this.asked.push(prompt);
    this.signals.push(signal);
    return typeof this.answer === 'function' ? this.answer() : this.answer;
  }
}

let call = 0;
const read = (path: string, extra: Partial<PermissionRequest> = {}): PermissionRequest =>
  ({ kind: 'read', path, intention: `Read ${path}`, toolCallId: `c${++call}`, ...extra }) as PermissionRequest;
const write = (fileName: string): PermissionRequest =>
  ({ kind: 'write', fileName, intention: 'Edit file', diff: '', canOfferSessionApproval: true, toolCallId: `c${++call}` }) as PermissionRequest;
const shell = (command: string, possiblePaths: string[] = []): PermissionRequest =>
  ({
    kind: 'shell',
    fullCommandText: command,
    intention: 'run',
    commands: [{ identifier: command.split(' ')[0], readOnly: false }],
    possiblePaths,
    possibleUrls: [],
    hasWriteFileRedirection: false,
    canOfferSessionApproval: false,
    toolCallId: `c${++call}`,
  }) as PermissionRequest;

describe('worker permission handler', () => {
  let root: string;
  let home: string;
  let project: string;
  let outside: string;
  let logger: MemoryLogger;
  let broker: FakeBroker;
  let trust: boolean;
  let sandboxed: boolean;
  let transcript: string[];

  let readOnly: boolean;

  const handler = (workingDir = project, signal?: AbortSignal): PermissionHandler =>
    createWorkerPermissionHandler({
      worker: 'w1',
      readOnly: () => readOnly,
      workingDir,
      protectedPaths: () => new ProtectedPaths({ homeDir: home, extra: ['~/private'] }),
      trustWorkingDir: () => trust,
      sandboxed: () => sandboxed,
      broker,
      logger,
      signal: () => signal,
      onDecision: (line) => transcript.push(line),
    });
  const decide = async (h: PermissionHandler, r: PermissionRequest) => h(r, { sessionId: 's1' }) as Promise<{ kind: string; feedback?: string }>;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-perm-')));
    home = join(root, 'home');
    project = join(home, 'dev', 'app');
    outside = join(home, 'dev', 'other');
    for (const d of [join(home, '.ssh'), join(home, '.aws'), join(home, 'private'), project, outside]) mkdirSync(d, { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'secret');
    writeFileSync(join(project, 'a.ts'), 'x');
    writeFileSync(join(outside, 'b.ts'), 'y');
    logger = new MemoryLogger();
    broker = new FakeBroker();
    trust = false;
    sandboxed = false;
    readOnly = false;
    transcript = [];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('approves reads and edits inside the working directory without asking, and logs them', async () => {
    const h = handler();
    assert.equal((await decide(h, read(join(project, 'a.ts')))).kind, 'approve-once');
    assert.equal((await decide(h, write(join(project, 'a.ts')))).kind, 'approve-once');
    // A new file in folders that do not exist yet: its nearest existing parent decides.
    assert.equal((await decide(h, write(join(project, 'src', 'new', 'b.ts')))).kind, 'approve-once');
    assert.equal(broker.asked.length, 0);
    assert.equal(logger.lines.filter((l) => l.includes("Worker 'w1': approved")).length, 3);
    assert.match(transcript[0]!, /permission approved: .*a\.ts \(read inside the working directory\)/);
  });

  it('a worker started to read only: every edit is refused without asking, inside its folder or not; reads go on', async () => {
    readOnly = true;
    broker.answer = 'worker';
    const h = handler();
    const inside = await decide(h, write(join(project, 'a.ts')));
    assert.equal(inside.kind, 'reject');
    assert.match(inside.feedback ?? '', /read only/);
    assert.equal((await decide(h, write(join(project, '.git', 'config')))).kind, 'reject');
    assert.equal((await decide(h, write(join(outside, 'b.ts')))).kind, 'reject');
    assert.equal((await decide(h, { ...write(join(outside, 'c.ts')), requestSandboxBypass: true } as PermissionRequest)).kind, 'reject');
    assert.equal((await decide(h, read(join(project, 'a.ts')))).kind, 'approve-once');
    assert.equal(broker.asked.length, 0);
    assert.match(transcript[0]!, /permission denied: .*a\.ts \(this worker only reads\)/);
  });

  it('what is hidden from a worker (git ignores it where it reads in place): reads and edits refused without asking, inside links too', async () => {
    const secret = join(project, '.env');
    writeFileSync(secret, 'KEY=1');
    symlinkSync(secret, join(project, 'env-link'));
    broker.answer = 'worker';
    const h = createWorkerPermissionHandler({
      worker: 'w1',
      workingDir: project,
      hidden: () => [secret, join(project, 'node_modules')],
      protectedPaths: () => new ProtectedPaths({ homeDir: home }),
      trustWorkingDir: () => true,
      sandboxed: () => true,
      broker,
      logger,
      onDecision: (line) => transcript.push(line),
    });
    for (const r of [read(secret), read(join(project, 'env-link')), read(join(project, 'node_modules', 'x', 'index.js')), write(secret)]) {
      const denied = await decide(h, r);
      assert.equal(denied.kind, 'reject');
      assert.match(denied.feedback ?? '', /is ignored by git/);
    }
    assert.equal((await decide(h, read(join(project, 'a.ts')))).kind, 'approve-once');
    assert.equal(broker.asked.length, 0);
  });

  it('a folder worktreeInclude linked into its worktree: read without asking through the link, an edit there still asks', async () => {
    const deps = join(outside, 'node_modules');
    mkdirSync(join(deps, 'dep'), { recursive: true });
    writeFileSync(join(deps, 'dep', 'index.js'), 'x');
    symlinkSync(deps, join(project, 'node_modules'));
    const h = createWorkerPermissionHandler({
      worker: 'w1',
      workingDir: project,
      readable: () => [deps],
      protectedPaths: () => new ProtectedPaths({ homeDir: home }),
      trustWorkingDir: () => true,
      sandboxed: () => true,
      broker,
      logger,
    });
    assert.equal((await decide(h, read(join(project, 'node_modules', 'dep', 'index.js')))).kind, 'approve-once');
    assert.equal(broker.asked.length, 0);
    assert.equal((await decide(h, write(join(project, 'node_modules', 'dep', 'index.js')))).kind, 'reject');
    assert.equal((await decide(h, read(join(outside, 'other.txt')))).kind, 'reject');
    assert.deepEqual(
      broker.asked.map((a) => a.kind),
      ['write', 'read'],
      'the edit and a read elsewhere outside it are asked',
    );
  });

  it('a worker started to read only: a command is never taken out of its sandbox or given its file limits off, not even by asking', async () => {
    readOnly = true;
    sandboxed = true;
    broker.answer = 'once';
    const h = handler();
    for (const permissive of [false, true]) {
      const denied = await decide(h, { ...shell('npm test'), requestSandboxBypass: true, requestSandboxPermissive: permissive } as PermissionRequest);
      assert.equal(denied.kind, 'reject');
      assert.match(denied.feedback ?? '', /read only/);
    }
    assert.equal(broker.asked.length, 0);
    assert.match(transcript.at(-1)!, /permission denied: npm test \(this worker only reads: its commands stay in its sandbox\)/);
    // A command in the sandbox is asked as for any worker.
    assert.equal((await decide(h, shell('ls'))).kind, 'approve-once');
    assert.equal(broker.asked.length, 1);
  });

  it('asks the user for anything outside the tree; "once" approves that call only', async () => {
    const h = handler();
    broker.answer = 'once';
    assert.equal((await decide(h, read(join(outside, 'b.ts')))).kind, 'approve-once');
    assert.equal((await decide(h, read(join(outside, 'b.ts')))).kind, 'approve-once');
    assert.equal(broker.asked.length, 2, 'asked again for the next call');
    assert.deepEqual({ ...broker.asked[0], id: 'x' }, { id: 'x', worker: 'w1', kind: 'read', detail: join(outside, 'b.ts'), kept: 'asker' });
    assert.ok(logger.lines.some((l) => l.includes('by the user, once')));
  });

  it('"worker" approves that kind for the rest of this worker — but never a protected path', async () => {
    const h = handler();
    broker.answer = 'worker';
    assert.equal((await decide(h, write(join(outside, 'c.ts')))).kind, 'approve-once');
    assert.equal((await decide(h, write(join(outside, 'd.ts')))).kind, 'approve-once');
    assert.equal(broker.asked.length, 1);
    const denied = await decide(h, write(join(home, '.ssh', 'authorized_keys')));
    assert.equal(denied.kind, 'reject');
    assert.match(denied.feedback ?? '', /protected path ~\/\.ssh/);
    // Reads outside are a different kind: still asked.
    broker.answer = 'deny';
    assert.equal((await decide(h, read(join(outside, 'b.ts')))).kind, 'reject');
    assert.equal(broker.asked.length, 2);
  });

  it('always denies protected paths, even for a worker in the home dir and via a symlink in its tree', async () => {
    symlinkSync(join(home, '.ssh'), join(project, 'keys'));
    trust = true;
    broker.answer = 'worker';
    const inHome = handler(home);
    for (const p of [join(home, '.ssh', 'id_rsa'), join(home, '.aws', 'credentials'), join(home, 'private', 'x'), join(home, 'dev', '..', '.ssh', 'id_rsa')]) {
      const r = await decide(inHome, read(p));
      assert.equal(r.kind, 'reject', p);
    }
    const viaLink = await decide(handler(), read(join(project, 'keys', 'id_rsa')));
    assert.equal(viaLink.kind, 'reject');
    assert.equal(broker.asked.length, 0, 'protected paths are never even asked about');
    assert.ok(logger.lines.filter((l) => l.includes('denied')).length >= 5);
  });

  it("a worker in / asks before each read in /proc, where every process's environment is (a read-only worker's folder included)", async () => {
    readOnly = true;
    broker.answer = 'worker';
    const h = handler('/');
    const environ = `/proc/${process.ppid}/environ`;
    assert.equal((await decide(h, read(environ))).kind, 'approve-once', 'asked, and the user said yes');
    assert.equal((await decide(h, read(environ))).kind, 'approve-once');
    assert.equal(broker.asked.length, 2, 'asked each time: no "for this worker" kept for /proc');
    assert.match(logger.lines.at(-1)!, /in \/proc/);
    // The rest of its folder it reads without asking.
    assert.equal((await decide(h, read(join(project, 'a.ts')))).kind, 'approve-once');
    assert.equal(broker.asked.length, 2);
  });

  it('asks before each recursive read of a folder that holds a protected dir: no "for this worker" is offered or kept', async () => {
    broker.answer = 'worker';
    const h = handler(home);
    assert.equal((await decide(h, read(home))).kind, 'approve-once');
    assert.equal((await decide(h, read(home))).kind, 'approve-once');
    assert.equal(broker.asked.length, 2, 'asked again');
    assert.equal(keptApproval(broker.asked[0]!, 'w'), undefined);
    assert.match(logger.lines.at(-1)!, /contains the protected path ~\/\.ssh/);
  });

  it('asks for shell commands and respects a denial', async () => {
    const h = handler();
    broker.answer = 'deny';
    const r = await decide(h, shell('npm test'));
    assert.equal(r.kind, 'reject');
    assert.match(r.feedback ?? '', /user denied/);
    assert.deepEqual({ ...broker.asked[0], id: 'x' }, { id: 'x', worker: 'w1', kind: 'shell', detail: 'npm test', kept: 'asker' });
    assert.ok(logger.lines.some((l) => /denied npm test \(shell command\) — by the user/.test(l)));
  });

  it('denies a shell command that names a protected path, without asking and even when trusted', async () => {
    trust = true;
    const h = handler();
    for (const cmd of ['cat ~/.ssh/id_rsa', 'cp $HOME/.aws/credentials /tmp/x', `tar czf /tmp/k.tgz ${join(home, '.ssh')}`, 'cat ../../.ssh/id_rsa']) {
      const r = await decide(h, shell(cmd));
      assert.equal(r.kind, 'reject', cmd);
    }
    assert.equal((await decide(h, shell('ls', [join(home, '.ssh')]))).kind, 'reject', "the runtime's possiblePaths count too");
    assert.equal(broker.asked.length, 0);
  });

  it('trustWorkingDir approves shell commands without asking inside the sandbox (but not in a folder holding protected dirs)', async () => {
    trust = true;
    sandboxed = true;
    assert.equal((await decide(handler(), shell('npm test'))).kind, 'approve-once');
    assert.equal(broker.asked.length, 0);
    broker.answer = 'once';
    assert.equal((await decide(handler(home), shell('ls'))).kind, 'approve-once');
    assert.equal(broker.asked.length, 1, 'a trusted home dir still asks');
  });

  it('without the sandbox, trust approves no shell command: every one asks', async () => {
    trust = true;
    sandboxed = false;
    broker.answer = 'deny';
    for (const cmd of ['cat $(echo ~)/.s"s"h/id_rsa', 'cd ~ && cat .ssh/id_rsa', 'npm test']) {
      assert.equal((await decide(handler(), shell(cmd))).kind, 'reject', cmd);
    }
    assert.equal(broker.asked.length, 3);
  });

  it('a request to run outside the sandbox always asks, worded so, and an earlier "for this worker" does not cover it', async () => {
    trust = true;
    sandboxed = true;
    broker.answer = 'worker';
    const h = handler();
    const bypass = { ...shell('npm install'), requestSandboxBypass: true, requestSandboxBypassReason: 'network blocked' } as PermissionRequest;
    assert.equal((await decide(h, bypass)).kind, 'approve-once');
    assert.equal((await decide(h, { ...bypass, toolCallId: 'next' } as PermissionRequest)).kind, 'approve-once');
    assert.equal(broker.asked.length, 2, 'each bypass is its own question');
    assert.equal(broker.asked[0]?.kind, 'outside the sandbox');
    assert.equal(keptApproval(broker.asked[0], 'w'), undefined, 'the prompt offers no "Allow for" it would not keep');
    assert.match(broker.asked[0]?.detail ?? '', /^outside the sandbox: npm install/);
    broker.answer = 'deny';
    assert.equal((await decide(h, { ...bypass, toolCallId: 'other' } as PermissionRequest)).kind, 'reject');
    // A protected path is refused before anyone is asked, bypass or not.
    assert.equal((await decide(h, { ...shell('cat ~/.ssh/id_rsa'), requestSandboxBypass: true } as PermissionRequest)).kind, 'reject');
    assert.equal(broker.asked.length, 3);
  });

  it('a sandbox bypass for a file outside the folder asks about that file, not about running outside the sandbox', async () => {
    sandboxed = true;
    broker.answer = 'once';
    const h = handler();
    const outside = join(home, 'elsewhere', 'notes.txt');
    const bypass = { ...write(outside), requestSandboxBypass: true, requestSandboxBypassReason: 'outside the writable paths' } as PermissionRequest;
    assert.equal((await decide(h, bypass)).kind, 'approve-once');
    assert.equal(broker.asked[0]?.kind, 'edit a file outside its folder');
    assert.equal(keptApproval(broker.asked[0], 'w'), undefined);
    assert.match(broker.asked[0]?.detail ?? '', /notes\.txt \(outside its folder; its sandbox blocks this unless you allow it once\)$/);
    assert.doesNotMatch(JSON.stringify(broker.asked), /outside the sandbox/i);
  });

  it('a permissive retry is asked each time, worded as what it is: in the sandbox, file limits off, network rules kept', async () => {
    trust = true;
    sandboxed = true;
    broker.answer = 'worker';
    const h = handler();
    const retry = {
      ...shell('npm install'),
      requestSandboxBypass: true,
      requestSandboxPermissive: true,
      requestSandboxBypassReason: 'a write was blocked',
    } as PermissionRequest;
    assert.equal((await decide(h, retry)).kind, 'approve-once');
    assert.equal((await decide(h, { ...retry, toolCallId: 'next' } as PermissionRequest)).kind, 'approve-once');
    assert.equal(broker.asked.length, 2, 'never covered by trust or an earlier answer');
    assert.equal(broker.asked[0]?.kind, 'sandbox file and process limits off');
    assert.equal(keptApproval(broker.asked[0], 'w'), undefined);
    assert.match(broker.asked[0]?.detail ?? '', /^in the sandbox, file and process limits off: npm install/);
    assert.doesNotMatch(JSON.stringify(broker.asked), /outside the sandbox/i);
    assert.equal(
      (await decide(h, { ...shell('cat ~/.ssh/id_rsa'), requestSandboxBypass: true, requestSandboxPermissive: true } as PermissionRequest)).kind,
      'reject',
    );
  });

  it('asks once per tool call when the runtime repeats a request', async () => {
    let release!: (d: PermissionDecision) => void;
    broker.answer = () => new Promise((r) => (release = r));
    const h = handler();
    const req = read(join(outside, 'b.ts'));
    const both = Promise.all([decide(h, req), decide(h, { ...req })]);
    await new Promise((r) => setImmediate(r));
    release('once');
    const [a, b] = await both;
    assert.equal(a.kind, 'approve-once');
    assert.equal(b.kind, 'approve-once');
    assert.equal(broker.asked.length, 1);
  });

  it('denies when the prompt fails, hands the task signal to the broker, and refuses memory/extension kinds', async () => {
    const ctl = new AbortController();
    broker.answer = () => Promise.reject(new Error('panel closed'));
    const h = handler(project, ctl.signal);
    assert.equal((await decide(h, shell('make'))).kind, 'reject');
    assert.equal(broker.signals[0], ctl.signal);
    assert.ok(logger.lines.some((l) => l.includes('ended without an answer')));
    assert.equal((await decide(h, { kind: 'memory', fact: 'x', toolCallId: 'm' } as PermissionRequest)).kind, 'reject');
    assert.equal(
      (await decide(h, { kind: 'extension-env-access', extensionName: 'e', environmentVariables: ['GITHUB_TOKEN'] } as PermissionRequest)).kind,
      'reject',
    );
  });

  it('asks for URLs and MCP tools, and for managed-policy requests even inside the tree', async () => {
    broker.answer = 'once';
    const h = handler();
    assert.equal((await decide(h, { kind: 'url', url: 'https://example.test/x', intention: 'fetch' } as PermissionRequest)).kind, 'approve-once');
    assert.equal((await decide(h, { kind: 'mcp', serverName: 's', toolName: 't', toolTitle: 'T', readOnly: true } as PermissionRequest)).kind, 'approve-once');
    assert.equal((await decide(h, read(join(project, 'a.ts'), { managedApprovalRequired: true } as Partial<PermissionRequest>))).kind, 'approve-once');
    assert.deepEqual(
      broker.asked.map((p) => [p.kind, p.kept]),
      [
        ['url', 'asker'],
        ['mcp', 'asker'],
        ['read', undefined],
      ],
      'a managed-policy request is decided each time: no "Allow for" it would not keep',
    );
  });

  it('asks about an MCP call its guard could not check (a hook request), with the arguments to judge', async () => {
    broker.answer = 'once';
    const hook = {
      kind: 'hook',
      toolName: 'files-read_file',
      toolArgs: { path: '/x' },
      hookMessage: 'too large',
      toolCallId: `c${++call}`,
    } as PermissionRequest;
    assert.equal((await decide(handler(), hook)).kind, 'approve-once');
    assert.deepEqual(
      broker.asked.map((p) => [p.kind, p.detail]),
      [['mcp', 'files-read_file {"path":"/x"}']],
    );
  });

  it('finds path-like words in a command line', () => {
    assert.deepEqual(pathLikeTokens('cat ~/.ssh/id_rsa | grep x > out/log.txt; echo "$HOME/.npmrc" https://a.b/c .pypirc'), [
      '~/.ssh/id_rsa',
      'out/log.txt',
      '$HOME/.npmrc',
      '.pypirc',
    ]);
  });
});
