import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { protectedPathInArgs } from '../../src/core/workers/protectedArgs';
import { ProtectedPaths } from '../../src/core/workers/protectedPaths';

describe('protected paths in a tool call arguments', () => {
  let root: string;
  let home: string;
  let paths: ProtectedPaths;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-args-')));
    home = join(root, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    mkdirSync(join(home, 'dev'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'secret');
    symlinkSync(join(home, '.ssh'), join(home, 'dev', 'keys'));
    paths = new ProtectedPaths({ homeDir: home });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('finds the absolute spellings anywhere in the arguments: plain, ~, $HOME, a file URL, a word of a longer text, through a symlink', () => {
    const cases: Array<[unknown, string]> = [
      [{ path: join(home, '.ssh', 'id_rsa') }, join(home, '.ssh', 'id_rsa')],
      [{ files: [{ name: 'x', at: '~/.ssh/id_rsa' }] }, '~/.ssh/id_rsa'],
      [{ p: '$HOME/.ssh' }, '$HOME/.ssh'],
      [{ uri: pathToFileURL(join(home, '.ssh', 'id_rsa')).href }, join(home, '.ssh', 'id_rsa')],
      [{ command: `cat ${join(home, '.ssh', 'id_rsa')} | head` }, join(home, '.ssh', 'id_rsa')],
      [[join(home, 'dev', 'keys', 'id_rsa')], join(home, 'dev', 'keys', 'id_rsa')],
    ];
    for (const [args, spelled] of cases)
      assert.deepEqual(protectedPathInArgs(args, paths), { kind: 'protected', path: spelled, label: '~/.ssh' }, JSON.stringify(args));
  });

  it('lets the rest through: other files, relative paths (their base is the server), other URLs, no arguments', () => {
    for (const args of [
      { path: join(home, 'dev', 'a.ts') },
      { path: '.ssh/id_rsa' },
      { url: 'https://example.test/~/.ssh' },
      { uri: 'file://otherhost/home/x/.ssh/id_rsa' },
      { n: 3, ok: true, none: null },
      undefined,
      'plain words',
    ])
      assert.deepEqual(protectedPathInArgs(args, paths), { kind: 'clear' }, JSON.stringify(args));
  });

  it('says so when hostile arguments are past its bounds (too deep, too many strings, too long a string), so the user is asked', () => {
    let deep: unknown = { path: '~/.ssh/id_rsa' };
    for (let i = 0; i < 40; i++) deep = { next: deep };
    let shallow: unknown = { path: '~/.ssh/id_rsa' };
    for (let i = 0; i < 20; i++) shallow = { next: shallow };
    assert.deepEqual(protectedPathInArgs(shallow, paths), { kind: 'protected', path: '~/.ssh/id_rsa', label: '~/.ssh' });
    assert.deepEqual(protectedPathInArgs(deep, paths), { kind: 'unchecked' });
    assert.deepEqual(protectedPathInArgs({ words: Array.from({ length: 6_000 }, (_, i) => `word ${i}`) }, paths), { kind: 'unchecked' });
    assert.deepEqual(protectedPathInArgs({ text: 'a '.repeat(200_000) }, paths), { kind: 'unchecked' });
    assert.deepEqual(protectedPathInArgs({ text: 'a '.repeat(100_000) }, paths), { kind: 'clear' });
  });
});
