import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { buildRuntimeEnvironment } from '../../src/core/copilot/runtimeEnvironment';
import { safePath } from '../../src/core/util/safePath';

describe('PATH without the current folder', () => {
  it('drops empty and relative entries, keeps the absolute ones in order', () => {
    assert.equal(safePath(':/usr/local/bin::/usr/bin:.:node_modules/.bin:/bin:', ':', path.posix.isAbsolute), '/usr/local/bin:/usr/bin:/bin');
    assert.equal(safePath('.;C:\\Windows\\system32;;bin;C:\\Tools', ';', path.win32.isAbsolute), 'C:\\Windows\\system32;C:\\Tools');
    assert.equal(safePath(undefined), '');
  });

  it("is the runtime's PATH, whatever VS Code's holds (Windows' Path too)", () => {
    assert.equal(buildRuntimeEnvironment({ PATH: ':/usr/bin:./x' }, {}, 'linux').env.PATH, '/usr/bin');
    assert.equal(buildRuntimeEnvironment({ Path: 'C:\\Git\\cmd;.;' }, {}, 'win32').env.Path, 'C:\\Git\\cmd');
  });
});
