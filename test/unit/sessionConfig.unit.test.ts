import * as assert from 'node:assert/strict';
import type { BatonTool } from '../../src/core/copilot/batonTool';
import type { SessionSpec, ToolGuard } from '../../src/core/copilot/agentSessions';
import { buildSessionConfig, RUNTIME_BUILTIN_TOOLS } from '../../src/core/copilot/sessionConfig';

describe("session config: a repository's hooks files", () => {
  it('are off for every role, whatever extra config says', () => {
    const specs: SessionSpec[] = [
      { role: 'orchestrator', model: 'm', tools: [], systemMessage: '' },
      { role: 'worker', workingDirectory: '/w', systemMessage: '', permissions: () => ({ kind: 'reject' }), ownSession: true },
      { role: 'classifier', model: 'm' },
      { role: 'summarizer', model: 'm' },
    ];
    for (const spec of specs)
      assert.equal(buildSessionConfig(spec, { provider: undefined, extra: { enableFileHooks: true } }).enableFileHooks, false, spec.role);
  });
});

describe('session config: the MCP guard', () => {
  const seen: string[] = [];
  const guard: ToolGuard = (toolName, args) => {
    seen.push(toolName);
    return JSON.stringify(args).includes('.ssh') ? { decision: 'deny', reason: 'protected' } : undefined;
  };
  const hook = (spec: SessionSpec) => {
    const onPreToolUse = buildSessionConfig(spec, { provider: undefined }).hooks?.onPreToolUse;
    assert.ok(onPreToolUse, 'the session has the pre-tool hook');
    return (toolName: string, toolArgs: unknown) =>
      onPreToolUse({ toolName, toolArgs, sessionId: 's', timestamp: new Date(), workingDirectory: '/w' }, { sessionId: 's' });
  };
  beforeEach(() => (seen.length = 0));

  it("holds every tool that is neither the runtime's nor Baton's to it, the orchestrator's and a worker's", async () => {
    const own = { name: 'delegate_task' } as BatonTool;
    const orchestrator = hook({ role: 'orchestrator', model: 'm', tools: [own], systemMessage: '', mcpGuard: guard });
    assert.deepEqual(await orchestrator('notes-read_file', { path: '~/.ssh/id_rsa' }), { permissionDecision: 'deny', permissionDecisionReason: 'protected' });
    assert.equal(await orchestrator('notes-read_file', { path: '/tmp/x' }), undefined);
    assert.equal(await orchestrator('delegate_task', { prompt: 'read ~/.ssh' }), undefined);
    const worker = hook({
      role: 'worker',
      workingDirectory: '/w',
      systemMessage: '',
      permissions: () => ({ kind: 'reject' }),
      ownSession: true,
      mcpGuard: guard,
    });
    assert.deepEqual(await worker('files-read', { p: '~/.ssh/id_rsa' }), { permissionDecision: 'deny', permissionDecisionReason: 'protected' });
    // The runtime's own tools raise permission requests that name each path: the handler checks those.
    assert.equal(await worker('edit', { path: '/w/README.md', new_str: 'keys live in ~/.ssh' }), undefined);
    // Its `lsp` asks for nothing: the guard holds it, like an MCP tool.
    assert.deepEqual(await worker('lsp', { operation: 'hover', file: '~/.ssh/id_rsa' }), { permissionDecision: 'deny', permissionDecisionReason: 'protected' });
    assert.deepEqual(seen, ['notes-read_file', 'notes-read_file', 'files-read', 'lsp']);
  });

  it('is absent without a guard (the classifier, the summarizer)', () => {
    assert.equal(buildSessionConfig({ role: 'classifier', model: 'm' }, { provider: undefined }).hooks, undefined);
  });
});

describe("session config: the runtime's own tools", () => {
  const worker: SessionSpec = { role: 'worker', workingDirectory: '/w', systemMessage: '', permissions: () => ({ kind: 'reject' }), ownSession: true };

  it('the orchestrator is offered none that acts (`lsp`, which a repository brings in, too); its skill tool stays', () => {
    const config = buildSessionConfig({ role: 'orchestrator', model: 'm', tools: [], systemMessage: '' }, { provider: undefined });
    assert.deepEqual(config.excludedTools, [...RUNTIME_BUILTIN_TOOLS, 'lsp']);
    assert.ok(!(config.excludedTools as string[]).includes('skill'));
  });

  it("a worker has `lsp` (a repository's language server) only inside the sandbox", () => {
    assert.deepEqual(buildSessionConfig(worker, { provider: undefined, sandboxed: false }).excludedTools, ['lsp']);
    assert.deepEqual(buildSessionConfig(worker, { provider: undefined }).excludedTools, ['lsp']);
    assert.equal(buildSessionConfig(worker, { provider: undefined, sandboxed: true }).excludedTools, undefined);
  });
});
