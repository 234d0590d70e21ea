import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

describe('the manifest', () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    capabilities?: { untrustedWorkspaces?: { supported?: unknown; description?: unknown }; virtualWorkspaces?: { supported?: unknown; description?: unknown } };
  };

  it("keeps Baton off in an untrusted folder (Restricted Mode), saying why in VS Code's words", () => {
    const untrusted = manifest.capabilities?.untrustedWorkspaces;
    assert.equal(untrusted?.supported, false);
    assert.match(String(untrusted?.description), /until you trust the folder/);
  });

  it('keeps Baton off in a virtual workspace (a folder with no files on disk for workers, git and the runtime), saying why', () => {
    const virtual = manifest.capabilities?.virtualWorkspaces;
    assert.equal(virtual?.supported, false);
    assert.match(String(virtual?.description), /files on disk/);
  });
});
