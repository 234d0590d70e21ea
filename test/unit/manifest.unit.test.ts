import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

describe('the manifest', () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    capabilities?: { untrustedWorkspaces?: { supported?: unknown; description?: unknown } };
  };

  it("keeps Baton off in an untrusted folder (Restricted Mode), saying why in VS Code's words", () => {
    const untrusted = manifest.capabilities?.untrustedWorkspaces;
    assert.equal(untrusted?.supported, false);
    assert.match(String(untrusted?.description), /until you trust the folder/);
  });
});
