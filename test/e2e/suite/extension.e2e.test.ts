/**
 * Runs inside a real VS Code's extension host (see ./index.ts): what a user gets from installing Baton, before and
 * right after it activates. Chatting through the panel is covered by the Playwright suite in ../ui.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

const EXTENSION_ID = 'baton-dev.baton';

/** Descendants of this extension host whose command line mentions copilot (the SDK's runtime). */
function copilotChildren(): string[] {
  const procs = listProcesses();
  const descendants = new Set<number>([process.pid]);
  // Parents come before children in neither listing, so iterate to a fixed point.
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) {
      if (descendants.has(p.ppid) && !descendants.has(p.pid)) {
        descendants.add(p.pid);
        grew = true;
      }
    }
  }
  return procs.filter((p) => p.pid !== process.pid && descendants.has(p.pid) && /copilot/i.test(p.args)).map((p) => `${p.pid} ${p.args}`);
}

function listProcesses(): { pid: number; ppid: number; args: string }[] {
  if (process.platform === 'linux') {
    const out = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // "pid (comm) state ppid ...": comm may contain spaces, so split after the last ')'.
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
        out.push({ pid: Number(entry), ppid, args });
      } catch {
        // exited meanwhile
      }
    }
    return out;
  }
  if (process.platform === 'win32') return []; // no cheap listing; the isActive check still holds there
  return execFileSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
}

describe('Baton in VS Code', () => {
  let extension: vscode.Extension<unknown>;

  before(() => {
    const found = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(found, `${EXTENSION_ID} is not installed in this window`);
    extension = found;
  });

  it('is present, from the build under test', () => {
    assert.equal(extension.packageJSON.publisher, 'baton-dev');
    assert.equal(extension.packageJSON.displayName, 'Baton');
    const extensionsDir = process.env.BATON_E2E_EXTENSIONS_DIR;
    if (process.env.BATON_E2E_MODE === 'vsix' && extensionsDir) {
      // Installed from the .vsix, not loaded from the dev folder.
      assert.ok(
        path.resolve(extension.extensionPath).startsWith(path.resolve(extensionsDir) + path.sep),
        `expected the installed extension under ${extensionsDir}, got ${extension.extensionPath}`,
      );
    }
  });

  it('activates lazily: nothing of Baton runs until it is used', () => {
    // This is the first test and nothing here has opened the Baton view yet.
    assert.equal(extension.isActive, false, 'Baton activated at startup; it should wait for its view or a command');
    assert.deepEqual(copilotChildren(), []);
  });

  it('registers its commands on activation, still without starting the Copilot runtime', async () => {
    await extension.activate();
    assert.equal(extension.isActive, true);
    // Checked as soon as activate() settles: VS Code runs a palette command right after the activation that command
    // triggered, so a command registered any later fails with "command not found".
    const commands = new Set(await vscode.commands.getCommands(true));
    const contributed = (extension.packageJSON.contributes?.commands ?? []).map((c: { command: string }) => c.command);
    const required = ['baton.newChat', 'baton.stop', 'baton.attachSession', 'baton.killWorker', 'baton.showLog'];
    const missing = [...new Set([...required, ...contributed])].filter((id) => !commands.has(id));
    assert.deepEqual(missing, [], 'commands not registered when activate() returned');
    // Activation builds the core just after it returns (store, orchestrator); give that a moment, then make sure it
    // did not spawn the runtime: that waits for the chat view or a message.
    await new Promise((r) => setTimeout(r, 1_500));
    assert.deepEqual(copilotChildren(), [], 'the Copilot runtime started before the chat view opened');
  });

  it('shows its log without error', async () => {
    await vscode.commands.executeCommand('baton.showLog');
  });

  it('has the documented setting defaults', () => {
    const config = vscode.workspace.getConfiguration('baton');
    // The defaults as declared, whatever this test window's user settings say.
    const defaults = {
      'provider.type': 'copilot',
      'routing.auto': false,
      'workers.max': 5,
      'workers.timeoutMs': 600_000,
    };
    for (const [key, expected] of Object.entries(defaults)) {
      assert.deepEqual(config.inspect(key)?.defaultValue, expected, `default of baton.${key}`);
    }
  });

  it("ignores a repository's own settings that would weaken the guards: the sandbox, the network, the environment, isolation, where prompts go", () => {
    // runE2e.mjs wrote them into this workspace's .vscode/settings.json, as a cloned repository can.
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(folder, 'the in-host window has a workspace folder');
    const tried = JSON.parse(readFileSync(path.join(folder, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
    const config = vscode.workspace.getConfiguration();
    const guarded = Object.keys(tried).filter((key) => key !== 'baton.routing.premiumKeywords' && key !== 'baton.wiki.folder');
    assert.equal(guarded.length, 12);
    for (const key of guarded) {
      assert.equal(config.inspect(key)?.workspaceValue, undefined, `${key}: the workspace's value was not taken`);
      assert.deepEqual(config.get(key), config.inspect(key)?.defaultValue, `${key}: Baton reads the user's value (the default here)`);
    }
    // What a workspace may set, it does (the file was read).
    assert.deepEqual(config.get('baton.routing.premiumKeywords'), ['from-the-workspace']);
  });

  // Last: Doctor starts the Copilot runtime.
  it("Toggle Auto writes where the setting comes from: a workspace that sets it is switched (the user's settings would lose to it)", async () => {
    const config = () => vscode.workspace.getConfiguration('baton');
    await config().update('routing.auto', true, vscode.ConfigurationTarget.Workspace);
    try {
      assert.equal(config().get('routing.auto'), true);
      await vscode.commands.executeCommand('baton.toggleRouting');
      const where = config().inspect<boolean>('routing.auto');
      assert.equal(config().get('routing.auto'), false, 'routing is off, as the command says');
      assert.equal(where?.workspaceValue, false);
      assert.equal(where?.globalValue, undefined, "nothing written to the user's settings");
      // Where no workspace sets it (off by default), the user's settings take it.
      await config().update('routing.auto', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('baton.toggleRouting');
      assert.equal(config().inspect<boolean>('routing.auto')?.globalValue, true);
      assert.equal(config().get('routing.auto'), true);
    } finally {
      await config().update('routing.auto', undefined, vscode.ConfigurationTarget.Workspace);
      await config().update('routing.auto', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('names settings of the wrong type that are not numbers in Doctor, and goes on with their defaults: the wiki folder, implicit context, the summarize policy, the verify command', async () => {
    const config = () => vscode.workspace.getConfiguration('baton');
    // The workspace sets baton.wiki.folder to ".." (runE2e.mjs): put back as it was after.
    const workspaceWiki = config().inspect('wiki.folder')?.workspaceValue;
    await config().update('wiki.folder', 5, vscode.ConfigurationTarget.Workspace);
    await config().update('context.implicit', 'false', vscode.ConfigurationTarget.Global);
    await config().update('conversation.summarize', 10, vscode.ConfigurationTarget.Global);
    await config().update('workers.verifyCommand', 3, vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('baton.doctor');
      const report = vscode.window.activeTextEditor?.document.getText() ?? '';
      for (const line of [
        'baton.wiki.folder has a value of the wrong type (5): it must be text. Baton uses the default, none, until it is fixed.',
        'baton.context.implicit has a value of the wrong type ("false"): it must be true or false. Baton uses the default, true, until it is fixed.',
        'baton.workers.verifyCommand has a value of the wrong type (3): it must be text. Baton uses the default, none, until it is fixed.',
      ]) {
        assert.ok(report.includes(line), `Doctor names it: ${line}\n${report}`);
      }
      assert.match(
        report,
        /baton\.conversation\.summarize has a value of the wrong type \(10\): it must be an object\. Baton uses the default, \{.*\}, until it is fixed\./,
      );
      // Where the wiki lives meanwhile: Baton's storage, said in the same report (a throw here stopped Baton's start).
      assert.match(report, /^- ✅ Wiki folder: \//m);
    } finally {
      await config().update('wiki.folder', workspaceWiki, vscode.ConfigurationTarget.Workspace);
      for (const key of ['context.implicit', 'conversation.summarize', 'workers.verifyCommand']) {
        await config().update(key, undefined, vscode.ConfigurationTarget.Global);
      }
    }
  });

  it("names a numeric setting out of its bounds in Doctor, and leaves the value as the user set it; names a workspace's wiki folder that leads outside it, and a token in its git remote's URL by key only", async () => {
    const config = vscode.workspace.getConfiguration('baton');
    await config.update('workers.max', 'lots', vscode.ConfigurationTarget.Global);
    // The workspace as a clone whose remote URL holds a token (as a CI checkout leaves it): named by key, never shown.
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
    execFileSync('git', ['init', '-q', folder]);
    execFileSync('git', ['-C', folder, 'remote', 'add', 'origin', 'https://bob:tok-E2E-SECRET@git.invalid/x/y.git']);
    try {
      await vscode.commands.executeCommand('baton.doctor');
      const report = vscode.window.activeTextEditor?.document.getText() ?? '';
      assert.match(
        report,
        /^- ❌ Settings: baton\.workers\.max is "lots", but it must be a whole number from 1 to 20\. Baton uses the default, 5, until it is fixed\.$/m,
      );
      assert.equal(vscode.workspace.getConfiguration('baton').get('workers.max'), 'lots', 'the value is left as set');
      // The workspace's wiki folder leads out of it (runE2e.mjs): refused, and the wiki stays in Baton's storage.
      assert.match(
        report,
        /^- ❌ Wiki folder: baton\.wiki\.folder "\.\." in this workspace's settings leads outside its folders \(.+\); the wiki stays in Baton's storage\. A folder outside the workspace can be set in your user settings\.$/m,
      );
      assert.match(report, /^- ✅ Git: git version \S+: each worker gets its own worktree \(of a copy, in a folder without git\)$/m);
      // No worker has run in this window: nothing kept for a folder without git.
      assert.match(report, /^- ✅ Worker changes: none waiting for review\n- ✅ Copies of folders without git: none kept$/m);
      assert.match(
        report,
        /^- Folders workers change unasked \(Allow in this folder\): none: Baton asks before a worker it cannot isolate changes a folder itself$/m,
      );
      // Where the conversation's session stands against its bound (no message sent here: no session yet).
      assert.match(
        report,
        /^- ✅ Baton sessions: [\d.]+ MB; this conversation's session (none yet|\S+, its history [\d.]+ MB \(past 4 MB the conversation moves to a new session from its summary\))$/m,
      );
      const credentials = report.split('\n').find((l) => l.includes('Credentials in git’s config')) ?? '';
      assert.ok(
        credentials.startsWith(
          `- ❌ Credentials in git’s config: ${folder}: git's config holds a credential, remote.origin.url (local: a password in a URL). A worker there can read it`,
        ),
        credentials,
      );
      assert.ok(!report.includes('tok-E2E-SECRET'), 'the token itself is never in the report');
    } finally {
      rmSync(path.join(folder, '.git'), { recursive: true, force: true });
      await config.update('workers.max', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
