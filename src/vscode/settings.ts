// Reads Baton's settings (baton.*) into the plain shapes core understands.
import * as vscode from 'vscode';
import type { ProviderSettings, ProviderType } from '../core/copilot/copilotRuntime';
import type { OrchestratorSettings } from '../core/orchestrator/orchestrator';
import type { NetworkMode } from '../core/workers/workerNetwork';
import type { WorkerSettings } from '../core/workers/workerTypes';
import type { EnvironmentSetting } from '../core/copilot/agentSessions';
import { parseSummarizePolicy } from '../core/orchestrator/conversationCompactor';
import { MIN_RECYCLE, type RecycleSettings } from '../core/runtime/recyclePolicy';
import { DEFAULT_OVERRIDE_KEYWORDS, DEFAULT_TIERS, TIERS, type Tier } from '../core/orchestrator/router';
import { numberSetting } from './numberSettings';

export const SECRET_PREFIX = 'baton.provider.apiKey.';
const PROVIDERS: readonly ProviderType[] = ['copilot', 'openai', 'azure', 'anthropic'];

function config() {
  return vscode.workspace.getConfiguration('baton');
}

export function providerType(): ProviderType {
  const value = config().get<string>('provider.type', 'copilot');
  return (PROVIDERS as readonly string[]).includes(value) ? (value as ProviderType) : 'copilot';
}

export async function readProvider(secrets: vscode.SecretStorage): Promise<ProviderSettings> {
  const type = providerType();
  if (type === 'copilot') return { type };
  const baseUrl = config().get<string>('provider.baseUrl') || undefined;
  const apiKey = (await secrets.get(SECRET_PREFIX + type)) || undefined;
  return { type, baseUrl, apiKey };
}

export function readOrchestratorSettings(): OrchestratorSettings {
  const c = config();
  const tiers = { ...DEFAULT_TIERS, ...pickTiers(c.get<Record<string, string>>('routing.tiers', {})) };
  const keywords = c.get<string[]>('routing.premiumKeywords', DEFAULT_OVERRIDE_KEYWORDS);
  return {
    routing: {
      auto: c.get<boolean>('routing.auto', false),
      model: c.get<string>('model', 'claude-sonnet-4.5') || 'claude-sonnet-4.5',
      tiers,
      overrides: keywords.length ? [{ keywords, tier: 'premium' }] : [],
      cooldownMessages: 2,
    },
    turnTimeoutMs: numberSetting('baton.turnTimeoutMs'),
    selfEdit: c.get<boolean>('allowSelfEdit', false),
    summarize: parseSummarizePolicy({
      afterTurns: numberSetting('baton.conversation.summarize.afterTurns'),
      keep: numberSetting('baton.conversation.summarize.keep'),
    }),
  };
}

function pickTiers(raw: Record<string, string>): Partial<Record<Tier, string>> {
  const out: Partial<Record<Tier, string>> = {};
  for (const tier of TIERS) if (typeof raw?.[tier] === 'string' && raw[tier]) out[tier] = raw[tier];
  return out;
}

/**
 * baton.runtime.*: when the idle runtime is restarted; 0 turns a trigger off. Raised to a floor (as the settings'
 * descriptions say) so a restart can never follow the last one at once: below 1.1× is noise, and the restart's own
 * resume opens a session.
 */
export function readRuntimeSettings(): Partial<RecycleSettings> {
  const growth = numberSetting('baton.runtime.restartAtGrowth');
  const sessions = numberSetting('baton.runtime.restartAfterSessions');
  return {
    growth: growth === 0 ? 0 : Math.max(MIN_RECYCLE.growth, growth),
    maxSessions: sessions === 0 ? 0 : Math.max(MIN_RECYCLE.maxSessions, sessions),
  };
}

export function readWorkerSettings(): WorkerSettings {
  const c = config();
  return {
    max: numberSetting('baton.workers.max'),
    timeoutMs: numberSetting('baton.workers.timeoutMs'),
    protectedPaths: c.get<string[]>('workers.protectedPaths', []),
    trustWorkingDir: c.get<boolean>('workers.trustWorkingDirectory', false),
    sandbox: c.get<string>('workers.sandbox', 'auto') === 'off' ? 'off' : 'auto',
    network: networkMode(c.get<string>('workers.network', 'internet')),
    allowedHosts: hostList(c.get<unknown>('workers.allowedHosts', [])),
    blockedHosts: hostList(c.get<unknown>('workers.blockedHosts', [])),
    proxy: userProxy(),
    isolation: c.get<string>('workers.isolation', 'worktree') === 'none' ? 'none' : 'worktree',
    worktreeInclude: c.get<string[]>('workers.worktreeInclude', []).filter((e) => typeof e === 'string' && e.trim()),
    environment: readEnvironment(c.get<Record<string, unknown>>('workers.environment', {})),
    verifyCommand: c.get<string>('workers.verifyCommand', '').trim() || undefined,
  };
}

/** baton.workers.environment: entries that are neither `true` nor a string are left out (false means nothing). */
function readEnvironment(raw: Record<string, unknown>): EnvironmentSetting {
  const out: Record<string, string | true> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    if (value === true || typeof value === 'string') out[name] = value;
  }
  return out;
}

/** Every entry, as text: a wrong one is named by the worker's card and Doctor, never dropped here. */
function hostList(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))) : [JSON.stringify(raw)];
}

function networkMode(raw: string): NetworkMode {
  return raw === 'allow' || raw === 'deny' ? raw : 'internet';
}

/** The user's HTTP(S) proxy as VS Code itself uses it: its http.proxy setting, else the environment's. */
function userProxy(): string | undefined {
  const setting = vscode.workspace.getConfiguration('http').get<string>('proxy', '').trim();
  const env = process.env;
  return setting || env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy || undefined;
}

export async function setRoutingAuto(on: boolean): Promise<void> {
  await config().update('routing.auto', on, vscode.ConfigurationTarget.Global);
}

/** baton.workers.verifyCommand, in the workspace when one is open (a project's tests are the project's), else for the user. */
export async function setVerifyCommand(command: string): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config().update('workers.verifyCommand', command, target);
}

export async function setModel(model: string): Promise<void> {
  await config().update('model', model, vscode.ConfigurationTarget.Global);
}

export function readSkillIndexUrl(): string | undefined {
  return config().get<string>('skills.indexUrl', '').trim() || undefined;
}
