import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtimeToolDirs } from '../../src/core/copilot/runtimeTools';
import { workerSandboxPolicy } from '../../src/core/workers/workerSandbox';

describe("a worker's sandbox policy", () => {
  let root: string;
  const network = { mode: 'deny' as const, allowedHosts: [], blockedHosts: [], line: 'network off', brief: 'network off' };
  beforeEach(() => (root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-policy-')))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("keeps the runtime's own programs readable inside Baton's protected install folder, and the rest of it denied", () => {
    const install = join(root, 'extension');
    const tools = join(install, 'node_modules', '@github', 'copilot-sdk-linux-x64', 'ripgrep');
    mkdirSync(join(tools, 'bin'), { recursive: true });
    mkdirSync(join(install, 'dist'), { recursive: true });
    mkdirSync(join(install, 'node_modules', 'sql.js'), { recursive: true });
    writeFileSync(join(install, 'node_modules', '@github', 'copilot-sdk-linux-x64', 'package.json'), '{}');
    const work = join(root, 'work');
    mkdirSync(work);
    const policy = workerSandboxPolicy({ workingDir: work, protectedPaths: [install], network, runtimeTools: [tools] });
    assert.ok(policy.readonlyPaths.includes(tools));
    assert.deepEqual(
      [...policy.deniedPaths].sort(),
      [
        join(install, 'dist'),
        join(install, 'node_modules', '@github', 'copilot-sdk-linux-x64', 'package.json'),
        join(install, 'node_modules', 'sql.js'),
      ].sort(),
    );
    assert.deepEqual(policy.readwritePaths, [work]);
  });

  it("keeps a path it is given to read readable inside a protected folder (Baton's repository in its storage), never one the user protected", () => {
    const storage = join(root, 'storage');
    const work = join(storage, 'worktrees', 'w');
    const repo = join(storage, 'folder-repos', 'f.git');
    mkdirSync(work, { recursive: true });
    mkdirSync(repo, { recursive: true });
    mkdirSync(join(storage, 'store'), { recursive: true });
    const linked = join(root, 'project', 'secrets');
    mkdirSync(linked, { recursive: true });
    const policy = workerSandboxPolicy({ workingDir: work, protectedPaths: [storage, linked], network, readonlyPaths: [repo, linked] });
    assert.deepEqual([...policy.deniedPaths].sort(), [join(storage, 'store'), linked].sort());
    assert.ok(policy.readonlyPaths.includes(repo));
  });

  it('started to read only: its folder is readable and nothing in it writable', () => {
    const work = join(root, 'work');
    mkdirSync(join(work, '.git'), { recursive: true });
    const policy = workerSandboxPolicy({ workingDir: work, protectedPaths: [], network, readOnly: true });
    assert.deepEqual(policy.readwritePaths, []);
    assert.deepEqual(policy.readonlyPaths, [work]);
  });

  it("finds the runtime's tool folders in this machine's runtime package, and none for a platform without one", () => {
    const dirs = runtimeToolDirs();
    assert.deepEqual(
      dirs.map((d) => d.split('/').slice(-2).join('/')),
      [`copilot-sdk-${process.platform}-${process.arch}/ripgrep`, `copilot-sdk-${process.platform}-${process.arch}/tgrep`],
    );
    assert.deepEqual(runtimeToolDirs('aix', 'ppc64'), []);
  });
});
