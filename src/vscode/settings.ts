// Reads Baton's settings (baton.*) into the plain shapes core understands. Every value goes through a reader of its
// type (core/util/typedSetting.ts, numberSetting.ts): settings.json may hold any JSON, and a value of the wrong type
// reads as the default and is named (a warning once, Doctor until fixed), never a turn failing on it.
import * as vscode from 'vscode';
import type { ProviderSettings, ProviderType } from '../core/copilot/copilotRuntime';
import type { OrchestratorSettings } from '../core/orchestrator/orchestrator';
import type { WorkerSettings } from '../core/workers/workerTypes';
import type { WikiFolderSetting } from '../core/wiki/wikiFolder';
import { parseSummarizePolicy } from '../core/orchestrator/conversationCompactor';
import { MIN_RECYCLE, type RecycleSettings } from '../core/runtime/recyclePolicy';
import { DEFAULT_OVERRIDE_KEYWORDS, DEFAULT_TIERS, TIERS } from '../core/orchestrator/router';
import {
  readChoiceSetting,
  readEnvironmentSetting,
  readFlagSetting,
  readTextListSetting,
  readTextMapSetting,
  readTextSetting,
  type SettingReading,
} from '../core/util/typedSetting';
import { noteSettingProblem, numberSetting, numberSettingProblems } from './numberSettings';

export const SECRET_PREFIX = 'baton.provider.apiKey.';
const PROVIDERS: readonly ProviderType[] = ['copilot', 'openai', 'azure', 'anthropic'];
const DEFAULT_MODEL = 'claude-sonnet-4.5';

function config() {
  return vscode.workspace.getConfiguration('baton');
}

/** The reading's value; its problem (or that there is none now) is noted for the warning and Doctor. */
function use<T>(name: string, reading: SettingReading<T>): T {
  noteSettingProblem(name, reading.problem);
  return reading.value;
}

const text = (key: string, fallback: string): string => use(`baton.${key}`, readTextSetting(`baton.${key}`, config().get<unknown>(key), fallback));
const flag = (key: string, fallback: boolean): boolean => use(`baton.${key}`, readFlagSetting(`baton.${key}`, config().get<unknown>(key), fallback));
const list = (key: string, fallback: readonly string[]): string[] =>
  use(`baton.${key}`, readTextListSetting(`baton.${key}`, config().get<unknown>(key), fallback));
const choice = <const T extends string>(key: string, choices: readonly T[], fallback: T): T =>
  use(`baton.${key}`, readChoiceSetting(`baton.${key}`, config().get<unknown>(key), choices, fallback));

export function providerType(): ProviderType {
  return choice('provider.type', PROVIDERS, 'copilot');
}

export async function readProvider(secrets: vscode.SecretStorage): Promise<ProviderSettings> {
  const type = providerType();
  if (type === 'copilot') return { type };
  const baseUrl = text('provider.baseUrl', '') || undefined;
  const apiKey = (await secrets.get(SECRET_PREFIX + type)) || undefined;
  return { type, baseUrl, apiKey };
}

export function readOrchestratorSettings(): OrchestratorSettings {
  const tiers = { ...DEFAULT_TIERS, ...use('baton.routing.tiers', readTextMapSetting('baton.routing.tiers', config().get<unknown>('routing.tiers'), TIERS)) };
  const keywords = list('routing.premiumKeywords', DEFAULT_OVERRIDE_KEYWORDS);
  return {
    routing: {
      auto: flag('routing.auto', false),
      model: text('model', DEFAULT_MODEL) || DEFAULT_MODEL,
      tiers,
      overrides: keywords.length ? [{ keywords, tier: 'premium' }] : [],
      cooldownMessages: 2,
    },
    turnTimeoutMs: numberSetting('baton.turnTimeoutMs'),
    selfEdit: flag('allowSelfEdit', false),
    summarize: parseSummarizePolicy({
      afterTurns: numberSetting('baton.conversation.summarize.afterTurns'),
      keep: numberSetting('baton.conversation.summarize.keep'),
    }),
  };
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
  return {
    max: numberSetting('baton.workers.max'),
    timeoutMs: numberSetting('baton.workers.timeoutMs'),
    protectedPaths: list('workers.protectedPaths', []),
    trustWorkingDir: flag('workers.trustWorkingDirectory', false),
    sandbox: choice('workers.sandbox', ['auto', 'off'], 'auto'),
    network: choice('workers.network', ['internet', 'allow', 'deny'], 'internet'),
    allowedHosts: hostList('workers.allowedHosts'),
    blockedHosts: hostList('workers.blockedHosts'),
    proxy: userProxy(),
    isolation: choice('workers.isolation', ['worktree', 'none'], 'worktree'),
    worktreeInclude: list('workers.worktreeInclude', []),
    environment: use('baton.workers.environment', readEnvironmentSetting('baton.workers.environment', config().get<unknown>('workers.environment'))),
    verifyCommand: readVerifyCommand() || undefined,
  };
}

/** baton.workers.verifyCommand as text ('': none). */
export function readVerifyCommand(): string {
  return text('workers.verifyCommand', '');
}

/** baton.context.implicit: whether the active editor goes with each message from the panel. */
export function readImplicitContext(): boolean {
  return flag('context.implicit', true);
}

/**
 * baton.wiki.folder and whose settings set it (a workspace's value is held to the workspace: core/wiki/wikiFolder.ts);
 * undefined: not set, empty, or not text (then named like any setting of the wrong type).
 */
export function readWikiFolderSetting(): WikiFolderSetting | undefined {
  const inspected = config().inspect<unknown>('wiki.folder');
  // `!== undefined`, not `??`: a null set by the workspace is its value (of the wrong type), not the user's.
  const fromWorkspace = inspected?.workspaceFolderValue !== undefined ? inspected.workspaceFolderValue : inspected?.workspaceValue;
  const raw = fromWorkspace !== undefined ? fromWorkspace : inspected?.globalValue;
  const value = use('baton.wiki.folder', readTextSetting('baton.wiki.folder', raw, ''));
  return value ? { value, fromWorkspace: fromWorkspace !== undefined } : undefined;
}

/**
 * Every entry, as text: a wrong one is named by the worker's card and Doctor (the network is cut until it is fixed),
 * never dropped here, so a bad blocklist never opens the network. A lone text is a list of that one host.
 */
function hostList(key: string): string[] {
  const raw = config().get<unknown>(key, []);
  if (typeof raw === 'string') return list(key, []);
  noteSettingProblem(`baton.${key}`, undefined);
  return Array.isArray(raw) ? raw.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))) : [JSON.stringify(raw)];
}

/** The user's HTTP(S) proxy as VS Code itself uses it: its http.proxy setting, else the environment's. */
function userProxy(): string | undefined {
  // Secret: a proxy URL may carry user:password, so a problem names its type only.
  const setting = use('http.proxy', readTextSetting('http.proxy', vscode.workspace.getConfiguration('http').get<unknown>('proxy'), '', { secret: true }));
  const env = process.env;
  return setting || env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy || undefined;
}

/** Every setting read now: the problems, one line each (empty when each has its type and is within its bounds). */
export function settingProblems(): string[] {
  readOrchestratorSettings();
  readWorkerSettings();
  readSkillIndexUrl();
  readImplicitContext();
  readWikiFolderSetting();
  providerType();
  text('provider.baseUrl', '');
  return numberSettingProblems();
}

/**
 * Writes `key` where its value now comes from: the workspace's settings when they set it (written to the user's, a
 * workspace value would still win, and the switch would do nothing the user could see), else the user's.
 */
async function updateWhereSet(key: string, value: unknown): Promise<void> {
  const where = config().inspect(key);
  const target = where?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config().update(key, value, target);
}

export async function setRoutingAuto(on: boolean): Promise<void> {
  await updateWhereSet('routing.auto', on);
}

/** baton.workers.verifyCommand, in the workspace when one is open (a project's tests are the project's), else for the user. */
export async function setVerifyCommand(command: string): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config().update('workers.verifyCommand', command, target);
}

export async function setModel(model: string): Promise<void> {
  await updateWhereSet('model', model);
}

export function readSkillIndexUrl(): string | undefined {
  return text('skills.indexUrl', '') || undefined;
}
