// "Allow in this folder" is kept for a bounded number of folders: past the bound the oldest is asked about again.
import * as assert from 'node:assert/strict';
import { FolderApprovals, MAX_FOLDER_APPROVALS } from '../../src/core/workers/folderApprovals';

describe('folder approvals ("Allow in this folder")', () => {
  it(`keeps at most ${MAX_FOLDER_APPROVALS} folders, forgetting the one approved longest ago; approving again makes it the newest`, () => {
    const approvals = new FolderApprovals();
    for (let i = 0; i < MAX_FOLDER_APPROVALS; i++) approvals.add(`/home/u/f${i}`);
    assert.equal(approvals.size, MAX_FOLDER_APPROVALS);
    approvals.add('/home/u/f0');
    approvals.add('/home/u/new');
    assert.equal(approvals.size, MAX_FOLDER_APPROVALS);
    assert.equal(approvals.has('/home/u/f0'), true, 'approved again: kept');
    assert.equal(approvals.has('/home/u/f1'), false, 'the oldest: asked again');
    assert.equal(approvals.has('/home/u/new'), true);
    assert.equal(approvals.has('/home/u/f2'), true);
  });
});
