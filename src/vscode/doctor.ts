// `Baton: Doctor`: a report a user can paste into a bug.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LIVE_KEEP } from '../core/conversations/conversations';
import { describeConversations } from '../core/conversations/conversationsReport';
import { describeEnvironmentReport } from '../core/copilot/runtimeEnvironment';
import { SESSION_HISTORY_BYTES } from '../core/store/bounds';
import { networkReport } from '../core/workers/workerNetwork';
import { sandboxReport } from '../core/workers/sandboxReport';
import { FOLDER_REPOS_DIR } from '../core/git/folderRepos';
import { configSecrets, describeConfigSecrets, type ConfigSecret } from '../core/git/configSecrets';
import { Git } from '../core/git/git';
import { STATE_SESSION } from '../core/orchestrator/sessionKeeper';
import { conversationStateKey } from '../core/store/types';
import type { Core } from './services';
import { wikiFolderProblem } from './wikiFolderSetting';
import { readWorkerSettings, settingProblems } from './settings';

async function folderSize(dir: string): Promise<number> {
  let total = 0;
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? await folderSize(full) : (await fs.stat(full).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

function describeApprovedFolders(folders: readonly string[]): string {
  if (!folders.length) return 'none: Baton asks before a worker it cannot isolate changes a folder itself';
  return `${folders.join(', ')} (until the window closes; Baton: Ask Again Before Workers Change a Folder Itself takes ${folders.length === 1 ? 'it' : 'them'} back)`;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export async function runDoctor(core: Core, storageDir: string, version: string): Promise<string> {
  const lines = [
    `# Baton doctor report`,
    '',
    `- Baton ${version}, VS Code ${vscode.version} (${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ''}), ${process.platform}-${process.arch}, Node ${process.versions.node}`,
    `- Provider: ${core.sessions.provider.type}${core.sessions.provider.baseUrl ? ` at ${core.sessions.provider.baseUrl}` : ''}${core.sessions.provider.apiKey ? ' (API key set)' : ''}`,
  ];
  const check = async (name: string, fn: () => Promise<string>) => {
    try {
      lines.push(`- ✅ ${name}: ${await fn()}`);
    } catch (err) {
      lines.push(`- ❌ ${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  };
  await check('Settings', async () => {
    const problems = settingProblems();
    if (problems.length) throw new Error(problems.join(' '));
    return 'every setting of its type, every numeric one within its bounds';
  });
  await check('Wiki folder', async () => {
    const problem = wikiFolderProblem();
    if (problem) throw new Error(problem);
    return core.wiki.folder;
  });
  await check('Copilot runtime', async () => {
    const started = Date.now();
    const status = await core.sessions.status();
    return `runtime ${status.version} (protocol ${status.protocolVersion}), answered in ${Date.now() - started} ms, pid ${core.sessions.runtimePid() ?? '?'}`;
  });
  await check('Copilot runtime memory', () => core.recycler.describe());
  await check('Authentication', async () => {
    if (core.sessions.provider.type !== 'copilot') {
      const models = await core.sessions.listModels();
      return `provider configured; models: ${models.join(', ') || 'none listed'}`;
    }
    const auth = await core.sessions.authStatus();
    if (!auth.authenticated) throw new Error('not signed in to GitHub Copilot (run Baton: Sign In to GitHub Copilot, or `copilot login`)');
    return `signed in (${auth.authType ?? 'unknown'})`;
  });
  await check('Store integrity', async () => {
    const problems = core.store.integrityCheck();
    if (problems.length && !(problems.length === 1 && problems[0] === 'ok')) throw new Error(problems.join('; '));
    return 'ok';
  });
  await check('Storage size', async () => `${mb(await folderSize(storageDir))} in ${storageDir}`);
  await check('Baton sessions', async () => {
    // The shown conversation's: its live session, else the one it saved (each conversation keeps its own).
    const id = core.orchestrator.currentSessionId ?? core.store.getState(conversationStateKey(STATE_SESSION, core.conversations.activeId));
    const history = id ? await core.sessions.historyBytes(id) : undefined;
    const bound = `past ${SESSION_HISTORY_BYTES / 2 ** 20} MB the conversation moves to a new session from its summary`;
    return `${mb(await folderSize(path.join(storageDir, 'copilot-sessions')))}; this conversation's session ${id ?? 'none yet'}${history === undefined ? '' : `, its history ${mb(history)} (${bound})`}`;
  });
  await check('Conversations', async () => describeConversations(core.conversations.list(), core.conversations.openCount, LIVE_KEEP));
  await check('Windows', async () => core.conversationClaims.describe());
  await check('Workers', async () => `${core.pool.list().filter((w) => w.state === 'running').length} running`);
  // Without git a worker runs in the folder itself (no worktree of its own, not even of a copy): said before it does.
  await check('Git', async () => {
    if (readWorkerSettings().isolation === 'none') return 'not needed: baton.workers.isolation is "none"';
    const version = (await new Git({ timeoutMs: 5000 }).run(['--version'], { cwd: storageDir })).trim();
    return `${version}: each worker gets its own worktree (of a copy, in a folder without git)`;
  });
  // Names only, as for the environment: a worker reads the config git reads where it works (configSecrets.ts).
  await check('Credentials in git\u2019s config', async () => {
    if (readWorkerSettings().isolation === 'none') return 'not checked: baton.workers.isolation is "none"';
    const git = new Git({ timeoutMs: 5000 });
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const said: string[] = [];
    const shared = new Map<string, ConfigSecret>();
    for (const folder of folders) {
      const found = await configSecrets(git, folder).catch(() => []);
      // The user's own config (global, system) is read in every folder: said once.
      for (const s of found.filter((x) => x.scope === 'global' || x.scope === 'system')) shared.set(`${s.scope} ${s.key}`, s);
      const line = describeConfigSecrets(
        folder,
        found.filter((x) => x.scope !== 'global' && x.scope !== 'system'),
      );
      if (line) said.push(line);
    }
    const mine = describeConfigSecrets('Your git config', [...shared.values()]);
    if (mine) said.push(mine);
    if (said.length) throw new Error(said.join(' '));
    return folders.length ? 'none in the workspace folders\u2019 git config' : 'no workspace folder open';
  });
  // Where a worker Baton cannot isolate changes the folder itself without a question (the user's answer, this window).
  lines.push(`- Folders workers change unasked (Allow in this folder): ${describeApprovedFolders(core.pool.setup.approvedFolders())}`);
  await check('Workers\u2019 sandbox', async () => {
    const report = sandboxReport(core.sessions.sandboxSupport, core.pool.list());
    if (!report.ok) throw new Error(report.text);
    return report.text;
  });
  // Names only: a value (a token, a password) never goes into a report a user pastes into a bug.
  lines.push(
    `- Workers\u2019 environment (by allowlist; baton.workers.environment adds to it): ${describeEnvironmentReport(core.sessions.environmentReport())}`,
  );
  await check('Workers\u2019 network', async () => {
    const report = networkReport(core.pool.setup.network(), core.sessions.sandboxSupport, core.pool.list());
    if (!report.ok) throw new Error(report.text);
    return report.text;
  });
  await check('Verify before Apply', async () => {
    const command = readWorkerSettings().verifyCommand;
    if (!command) return 'off (baton.workers.verifyCommand is empty; Baton: Set the Command that Verifies Workers\u2019 Changes\u2026 suggests one)';
    // Never outside the sandbox: without it the command is not run, and Apply says so.
    if (!core.sessions.sandboxSupport.available)
      throw new Error(`\`${command}\` is set, but cannot run: it runs only inside the workers\u2019 sandbox, which is unavailable here`);
    return `\`${command}\` after each worker run, in its worktree and sandbox`;
  });
  await check('Worker changes', async () => {
    const pending = core.pool.changes?.list() ?? [];
    const orphans = (await core.pool.changes?.orphans()) ?? [];
    const list = pending.map((p) => `${p.worker} (${p.changeSet?.folderRepo ? `a copy of ${p.changeSet.repoRoot}` : (p.branch ?? p.dir)})`).join(', ');
    if (orphans.length) {
      throw new Error(
        `${orphans.length} orphaned worktree${orphans.length === 1 ? '' : 's'} no worker owns (left by a crash?): ${orphans.map((o) => `${o.worktreePath}${o.branch ? ` on ${o.branch}` : ''}`).join('; ')}. Run Baton: Clean Up Orphaned Worktrees to remove them.`,
      );
    }
    return pending.length ? `${pending.length} waiting for review: ${list}` : 'none waiting for review';
  });
  // What Baton keeps for folders without git: one repository per folder whose worker's changes wait (folderRepos.ts).
  await check('Copies of folders without git', async () => {
    const root = path.join(storageDir, FOLDER_REPOS_DIR);
    const repos = (await fs.readdir(root).catch(() => [] as string[])).filter((n) => !n.startsWith('.'));
    if (!repos.length) return 'none kept';
    return `${repos.length} ${repos.length === 1 ? 'repository' : 'repositories'} of Baton's (${mb(await folderSize(root))}), each kept while a worker's changes in a copy of its folder wait`;
  });
  return lines.join('\n') + '\n';
}
