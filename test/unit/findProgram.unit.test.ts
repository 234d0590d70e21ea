import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Git, GitError } from '../../src/core/git/git';
import { findProgram } from '../../src/core/util/findProgram';

describe("a program's absolute path, never the current folder's", () => {
  let root: string;
  const program = (dir: string, name: string, mode = 0o755): string => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, name);
    writeFileSync(file, '#!/bin/sh\nexit 0\n');
    chmodSync(file, mode);
    return file;
  };
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'baton-findprogram-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("finds the first executable in PATH's absolute entries, skipping the rest", () => {
    const a = join(root, 'a');
    const b = join(root, 'b');
    program(a, 'tool', 0o644);
    const found = program(b, 'tool');
    assert.equal(findProgram('tool', { PATH: `:.:${a}:${b}` }, 'linux'), found);
    assert.equal(findProgram('none', { PATH: `${a}:${b}` }, 'linux'), undefined);
  });

  it("on Windows, with PATHEXT's extensions, never the current folder's", () => {
    const files = new Set(['C:\\Git\\cmd\\git.exe', 'git.exe', 'C:\\repo\\git.exe']);
    const found = findProgram('git', { Path: `.;;C:\\Git\\cmd`, PATHEXT: '.COM;.EXE;.CMD' }, 'win32', (f) => files.has(f));
    assert.equal(found, 'C:\\Git\\cmd\\git.exe');
  });

  it("git, not found in PATH, fails as not installed, though the folder it runs in has a 'git'", async () => {
    const repo = join(root, 'repo');
    program(repo, 'git');
    const saved = process.env.PATH;
    process.env.PATH = join(root, 'empty');
    try {
      const git = new Git();
      await assert.rejects(git.run(['status'], { cwd: repo }), (err: unknown) => err instanceof GitError && err.kind === 'not-installed');
    } finally {
      process.env.PATH = saved;
    }
  });
});
