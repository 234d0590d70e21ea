// Which repository git is told for a folder without git of its own (folderMap.ts): the innermost mapped folder that
// holds the call's folder, never for Baton's own storage (a mapped home folder holds it), and nothing once unmapped.
import * as assert from 'node:assert/strict';
import { FolderMap } from '../../src/core/git/folderMap';

describe('FolderMap', () => {
  it('maps a folder and what is below it, the innermost first; not a sibling that shares its name as a prefix', () => {
    const map = new FolderMap();
    assert.equal(map.lookup('/home/u/notes'), undefined);
    map.set('/home/u', '/store/folder-repos/u.git');
    map.set('/home/u/notes', '/store/folder-repos/notes.git');
    assert.deepEqual(map.lookup('/home/u/notes/sub/'), { folder: '/home/u/notes', gitDir: '/store/folder-repos/notes.git' });
    assert.deepEqual(map.lookup('/home/u/notes2'), { folder: '/home/u', gitDir: '/store/folder-repos/u.git' });
    assert.equal(map.lookup('/home/other'), undefined);
    map.set('/home/u/notes', undefined);
    assert.deepEqual(map.lookup('/home/u/notes'), { folder: '/home/u', gitDir: '/store/folder-repos/u.git' });
  });

  it("never maps Baton's own storage, even inside a mapped folder (its worktrees' .git files name their repository)", () => {
    const map = new FolderMap();
    map.set('/home/u', '/home/u/.store/folder-repos/u.git');
    map.setOwnStorage('/home/u/.store');
    assert.equal(map.lookup('/home/u/.store/worktrees/abc/w1'), undefined);
    assert.equal(map.lookup('/home/u/.store'), undefined);
    assert.deepEqual(map.lookup('/home/u/.storex'), { folder: '/home/u', gitDir: '/home/u/.store/folder-repos/u.git' });
  });
});
