// The one place a session config is built, keyed by role, so the orchestrator, workers and the
// classifier cannot drift apart (provider block, Baton's session folder, streaming, permissions).
import type { ProviderConfig, SessionConfig, SessionHooks } from '@github/copilot-sdk';
import type { SessionSpec, ToolGuard } from './agentSessions';

/**
 * The runtime's own tools that ask for permission (runtime 1.0.85), measured from the tool list it sends to the model;
 * `lsp` is the runtime's too, but asks for nothing, so the MCP guard holds its calls (a file under a protected path).
 */
export const RUNTIME_BUILTIN_TOOLS = [
  'bash',
  'read_bash',
  'stop_bash',
  'list_bash',
  'view',
  'create',
  'edit',
  'web_fetch',
  'sql',
  'read_agent',
  'list_agents',
  'write_agent',
  'grep',
  'glob',
  'task',
] as const;

/**
 * The runtime's `lsp` tool, offered when a language server is configured, the repository's `.github/lsp.json` included.
 * Runtime 1.0.85, measured: its first call starts the program that file names, without a permission request, in the
 * session's sandbox when one holds and on the machine itself otherwise (a marker written outside any sandbox).
 */
export const LSP_TOOL = 'lsp';

/**
 * The runtime's built-in GitHub MCP server, by the name `disabledMcpServers` takes (its tools reach the model as
 * `github-mcp-server-<tool>`). Runtime 1.0.85, measured: at a session's first message it connects, from its own
 * process with the session's GitHub token, to `<api>/mcp/readonly` (GitHub's read-only mode, which drops write tools
 * server-side) asking for read tools only (X-MCP-Tools); only `githubMcpToolConfig.enableAllTools`, which Baton
 * never sets, would use the read-write endpoint. For a sandboxed session it connects only when the sandbox's network
 * lets the endpoint's host through; workers go by GitHub's API host too (workerSetup.ts).
 */
export const GITHUB_MCP_SERVER = 'github-mcp-server';

export interface SessionDefaults {
  /** The provider block every config must repeat (createSession and resumeSession alike). */
  provider: ProviderConfig | undefined;
  /** The GitHub token each session carries (never the runtime's environment, which shells inherit). */
  gitHubToken?: string;
  /** Baton's own session folder, so its sessions stay out of the user's Copilot CLI list. */
  sessionDirectory?: string;
  /** Whether a worker's session will be held by the runtime's sandbox (its policy given, and the machine can enforce it). */
  sandboxed?: boolean;
  /** Extra config for every session (a test's disabledMcpServers); cannot replace what a role fixes. */
  extra?: Partial<SessionConfig>;
}

/** The summarizer's standing instruction (text for the model). */
export const SUMMARIZER_SYSTEM =
  'You summarize the earlier part of a conversation so it can continue without it. Keep decisions, facts, names, open tasks. Answer with the summary only.';

/**
 * A repository's `.github/hooks/*.json` are shell commands the runtime runs by itself at a session's start, at each
 * prompt and around each tool call, outside any sandbox and without asking (measured, runtime 1.0.85: a workspace's
 * hooks ran at the orchestrator's first message, a worker folder's at its start). Opening Baton in a cloned repository
 * must not run its code, so no session of Baton's loads them, whatever a test's `extra` says.
 */
export function buildSessionConfig(spec: SessionSpec, defaults: SessionDefaults): SessionConfig {
  return { ...roleConfig(spec, defaults), enableFileHooks: false };
}

function roleConfig(spec: SessionSpec, defaults: SessionDefaults): SessionConfig {
  const own = defaults.sessionDirectory ? { configDirectory: defaults.sessionDirectory } : {};
  const provider = { ...(defaults.provider ? { provider: defaults.provider } : {}), ...(defaults.gitHubToken ? { gitHubToken: defaults.gitHubToken } : {}) };
  switch (spec.role) {
    case 'orchestrator':
      return {
        clientName: 'baton',
        model: spec.model,
        streaming: true,
        tools: spec.tools,
        // The orchestrator talks and delegates; only workers touch files or run commands. The runtime's own tools are
        // excluded by name, `lsp` too (offered once a repository names a language server; its call ran that program,
        // unsandboxed and unasked). Not by source (`builtin:*`): the runtime's `skill` tool, how skills reach the model,
        // is one of them (measured). The user's MCP tools stay, and the permission handler refuses any other kind of action.
        excludedTools: [...RUNTIME_BUILTIN_TOOLS, LSP_TOOL],
        ...(spec.mcpServers && Object.keys(spec.mcpServers).length ? { mcpServers: spec.mcpServers } : {}),
        ...(spec.skillDirectories?.length ? { skillDirectories: spec.skillDirectories } : {}),
        systemMessage: { mode: 'append', content: spec.systemMessage },
        infiniteSessions: { enabled: true, backgroundCompactionThreshold: 0.8, bufferExhaustionThreshold: 0.95 },
        ...own,
        ...provider,
        ...defaults.extra,
        ...(spec.mcpGuard
          ? {
              hooks: guardHooks(
                spec.mcpGuard,
                spec.tools.map((t) => t.name),
              ),
            }
          : {}),
        // Baton's tools run; MCP tools by orchestratorPermissions.ts (reads, or the user's answer); files and shells
        // are workers' work.
        onPermissionRequest:
          spec.permissions ??
          ((request) => (request.kind === 'custom-tool' ? { kind: 'approve-once' } : { kind: 'reject', feedback: 'Delegate this to a worker.' })),
      };
    case 'worker':
      return {
        clientName: 'baton-worker',
        streaming: true,
        systemMessage: { mode: 'append', content: spec.systemMessage },
        ...(spec.ownSession ? own : {}),
        ...(spec.trackChanges ? { enableFileChangeTracking: true } : {}),
        ...(spec.model ? { model: spec.model } : {}),
        ...(spec.skillDirectories?.length ? { skillDirectories: spec.skillDirectories } : {}),
        ...provider,
        ...defaults.extra,
        // Last, so nothing above can widen a worker's reach.
        ...(spec.disabledMcpServers?.length
          ? { disabledMcpServers: [...new Set([...(defaults.extra?.disabledMcpServers ?? []), ...spec.disabledMcpServers])] }
          : {}),
        workingDirectory: spec.workingDirectory,
        // A language server the repository names runs wherever the session's commands run: without a sandbox, that
        // is the machine, and no one is asked (each shell command is, there).
        ...(defaults.sandboxed ? {} : { excludedTools: [LSP_TOOL] }),
        ...(spec.mcpGuard ? { hooks: guardHooks(spec.mcpGuard, []) } : {}),
        onPermissionRequest: spec.permissions,
      };
    case 'classifier':
      return {
        clientName: 'baton-classifier',
        model: spec.model,
        streaming: false,
        availableTools: [],
        systemMessage: { mode: 'replace', content: 'You label messages for model routing. Answer with one word.' },
        ...own,
        ...provider,
        ...defaults.extra,
        onPermissionRequest: () => ({ kind: 'reject' }),
      };
    case 'summarizer':
      return {
        clientName: 'baton-summarizer',
        model: spec.model,
        streaming: false,
        availableTools: [],
        systemMessage: { mode: 'replace', content: SUMMARIZER_SYSTEM },
        ...own,
        ...provider,
        ...defaults.extra,
        onPermissionRequest: () => ({ kind: 'reject' }),
      };
  }
}

/**
 * The pre-tool hook that holds every MCP tool's call to `guard`: any tool that is neither the runtime's own (its
 * permission requests name each path and command, checked by the permission handler) nor Baton's (`own`). The
 * runtime's `lsp`, which asks for nothing, is held to it too: a file under a protected path is refused (measured).
 */
function guardHooks(guard: ToolGuard, own: readonly string[]): SessionHooks {
  const checkedElsewhere = new Set<string>([...RUNTIME_BUILTIN_TOOLS, ...own]);
  return {
    onPreToolUse: (input) => {
      if (checkedElsewhere.has(input.toolName)) return undefined;
      const verdict = guard(input.toolName, input.toolArgs);
      return verdict && { permissionDecision: verdict.decision, permissionDecisionReason: verdict.reason };
    },
  };
}
