import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveWikiFolder } from '../../src/core/wiki/wikiFolder';
import { ProtectedPaths } from '../../src/core/workers/protectedPaths';

describe('the wiki folder setting', () => {
  let root: string;
  let home: string;
  let repo: string;
  let resolve: (value: string, fromWorkspace: boolean) => ReturnType<typeof resolveWikiFolder>;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-wikifolder-')));
    home = join(root, 'home');
    repo = join(home, 'dev', 'app');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    mkdirSync(join(home, 'notes'), { recursive: true });
    mkdirSync(join(repo, 'docs'), { recursive: true });
    symlinkSync(join(home, 'notes'), join(repo, 'docs', 'elsewhere'));
    const protectedPaths = new ProtectedPaths({ homeDir: home });
    resolve = (value, fromWorkspace) => resolveWikiFolder({ value, fromWorkspace }, { workspaceFolders: [repo], protectedPaths });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("takes a workspace's folder inside the workspace, relative or absolute, and the user's anywhere", () => {
    assert.deepEqual(resolve('docs/wiki', true), { kind: 'folder', folder: join(repo, 'docs', 'wiki') });
    assert.deepEqual(resolve(join(repo, 'wiki'), true), { kind: 'folder', folder: join(repo, 'wiki') });
    assert.deepEqual(resolve(join(home, 'notes'), false), { kind: 'folder', folder: join(home, 'notes') });
    assert.deepEqual(resolveWikiFolder(undefined, { workspaceFolders: [repo], protectedPaths: new ProtectedPaths({ homeDir: home }) }), { kind: 'default' });
    assert.deepEqual(resolve('  ', true), { kind: 'default' });
  });

  it("refuses a workspace's folder that leads outside it: absolute, by .., by a symlink; and anyone's in or around a protected path", () => {
    for (const value of ['/', home, '../..', 'docs/elsewhere']) {
      const wiki = resolve(value, true);
      assert.equal(wiki.kind, 'refused', value);
      assert.match(
        (wiki as { problem: string }).problem,
        /in this workspace's settings leads outside its folders .*A folder outside the workspace can be set in your user settings\./,
        value,
      );
    }
    assert.match((resolve(join(home, '.ssh'), false) as { problem: string }).problem, /is or holds the protected path ~\/\.ssh/);
    assert.match((resolve(home, false) as { problem: string }).problem, /is or holds the protected path ~\/\.ssh/);
  });
});
