// Baton's Doctor report when the core could not be built (the store did not open, the runtime package is missing...):
// the case a report is most needed, and doctor.ts needs the core for most of its checks. This one checks what it can
// without it: the storage folder, the Copilot runtime's package, the settings, git and the workers' environment; the
// checks that need the core are named as not run rather than left out unsaid.
import { constants, existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildRuntimeEnvironment, describeEnvironmentReport } from '../core/copilot/runtimeEnvironment';
import { Git } from '../core/git/git';
import type { StartFailure } from './deferredCommands';
import type { OutputLog } from './outputLog';
import { readWorkerSettings, settingProblems } from './settings';

/** What the report and the message need of the window. */
export interface StartFailureContext {
  storageDir: string;
  version: string;
  log: OutputLog;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The store's folder: there (or creatable), readable and writable, with room left. */
async function storageFolder(dir: string): Promise<string> {
  // Missing is fine (the store creates it) if its parent takes a new folder.
  const existing = existsSync(dir) ? dir : path.dirname(dir);
  await fs.access(existing, constants.R_OK | constants.W_OK);
  const free = await fs.statfs(existing).then(
    (s) => `, ${mb(s.bavail * s.bsize)} free`,
    () => '',
  );
  const store = path.join(dir, 'baton.sqlite');
  const file = await fs.stat(store).then(
    (s) => `; baton.sqlite ${mb(s.size)}`,
    () => '; no baton.sqlite yet',
  );
  return existing === dir ? `${dir}: readable and writable${free}${file}` : `${dir} does not exist yet; ${existing} takes it${free}`;
}

/** The Copilot runtime's package for this machine, found the way the SDK finds it (runtimeTools.ts). */
function runtimePackage(): string {
  const names = [
    `@github/copilot-sdk-${process.platform}-${process.arch}`,
    ...(process.platform === 'linux' ? [`@github/copilot-sdk-linuxmusl-${process.arch}`] : []),
  ];
  const require = createRequire(__filename);
  const dirs = names.flatMap((name) => (require.resolve.paths(name) ?? []).map((base) => path.join(base, name)));
  const root = dirs.find((dir) => existsSync(path.join(dir, 'package.json')));
  if (!root) throw new Error(`${names.join(' or ')} is not installed beside Baton (looked in ${dirs.length} folders): reinstall the extension`);
  const { version } = require(path.join(root, 'package.json')) as { version?: string };
  return `${root} (${version ?? 'version unknown'})`;
}

export async function doctorWithoutCore(failure: StartFailure, storageDir: string, version: string): Promise<string> {
  const reason = failure.reason instanceof Error ? failure.reason.message : String(failure.reason);
  const lines = [
    '# Baton doctor report (Baton did not start)',
    '',
    `- Baton ${version}, VS Code ${vscode.version} (${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ''}), ${process.platform}-${process.arch}, Node ${process.versions.node}`,
    `- ❌ Start: ${reason.split('\n')[0]}`,
  ];
  const check = async (name: string, fn: () => Promise<string> | string) => {
    try {
      lines.push(`- ✅ ${name}: ${await fn()}`);
    } catch (err) {
      lines.push(`- ❌ ${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  };
  await check('Storage folder', () => storageFolder(storageDir));
  await check('Copilot runtime package', runtimePackage);
  await check('Settings', () => {
    const problems = settingProblems();
    if (problems.length) throw new Error(problems.join(' '));
    return 'every setting of its type, every numeric one within its bounds';
  });
  await check('Git', async () => {
    if (readWorkerSettings().isolation === 'none') return 'not needed: baton.workers.isolation is "none"';
    return (await new Git({ timeoutMs: 5000 }).run(['--version'], { cwd: path.dirname(storageDir) })).trim();
  });
  // Names only: a value (a token, a password) never goes into a report a user pastes into a bug.
  await check('Workers\u2019 environment', () => describeEnvironmentReport(buildRuntimeEnvironment(process.env, readWorkerSettings().environment).report));
  lines.push(
    '- Not checked without Baton\u2019s core: the Copilot runtime\u2019s answer, sign-in, the store\u2019s integrity, conversations, workers and their changes. Reload the window to try again.',
  );
  return lines.join('\n') + '\n';
}

/** Opens the report in an editor, to read or paste into a bug. */
export async function openDoctorWithoutCore(failure: StartFailure, ctx: StartFailureContext): Promise<void> {
  const report = await doctorWithoutCore(failure, ctx.storageDir, ctx.version);
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: report });
  await vscode.window.showTextDocument(doc, { preview: true });
}

/** A command refused because Baton did not start: why, and the way to the report and the log. */
export function tellStartFailure(failure: StartFailure, ctx: StartFailureContext): undefined {
  void vscode.window.showErrorMessage(failure.message, 'Open Doctor Report', 'Show Log').then((pick) => {
    if (pick === 'Open Doctor Report') return openDoctorWithoutCore(failure, ctx);
    if (pick === 'Show Log') ctx.log.show();
  });
  return undefined;
}
