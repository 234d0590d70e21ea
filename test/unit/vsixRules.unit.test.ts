import * as assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { requiredFiles, vsixProblems } from '../support/vsixRules';

const ROOT = resolve(__dirname, '../..');

// A made-up .vsix listing holding exactly what linux-x64 needs; each test adds or drops one file.
function goodListing(target = 'linux-x64'): string[] {
  return ['extension.vsixmanifest', '[Content_Types].xml', ...requiredFiles(ROOT, target).map((p) => `extension/${p}`)];
}

describe('vsix rules', () => {
  it('need the manifest, README, changelog, license, bundles, wasm, typings, every media file named, and the runtime', () => {
    const need = requiredFiles(ROOT, 'linux-x64');
    for (const f of ['LICENSE.txt', 'changelog.md', 'media/icon.png', 'media/baton.svg', 'media/walkthrough/signin.md', 'media/screenshot.png'])
      assert.ok(need.includes(f), f);
    assert.ok(need.includes('node_modules/@github/copilot-sdk-linux-x64/prebuilds/linux-x64/runtime.node'));
    assert.ok(requiredFiles(ROOT, 'alpine-arm64').includes('node_modules/@github/copilot-sdk-linuxmusl-arm64/prebuilds/linux-arm64/runtime.node'));
    assert.deepEqual(vsixProblems(goodListing(), ROOT, 'linux-x64'), []);
  });

  it('name a missing file', () => {
    const listing = goodListing().filter((p) => p !== 'extension/media/icon.png' && p !== 'extension/LICENSE.txt');
    assert.deepEqual(vsixProblems(listing, ROOT, 'linux-x64'), ['missing: LICENSE.txt', 'missing: media/icon.png']);
  });

  it('name what must not ship: tests, sources, maps, other runtimes, other binaries, other node_modules', () => {
    const bad = [
      'extension/test/unit/x.unit.test.ts',
      'extension/src/extension.ts',
      'extension/webview/main.ts',
      'extension/dist/extension.js.map',
      'extension/node_modules/@github/copilot-sdk-darwin-arm64/package.json',
      'extension/node_modules/@github/copilot-sdk-linux-x64/prebuilds/win32-x64/runtime.node',
      'extension/node_modules/@github/copilot-sdk-linux-x64/ripgrep/bin/darwin-x64/rg',
      'extension/node_modules/zod/package.json',
      'extension/package-lock.json',
      'extension/.env',
      'extension/baton-linux-x64.vsix',
    ];
    const problems = vsixProblems([...goodListing(), ...bad], ROOT, 'linux-x64');
    assert.equal(problems.length, bad.length, problems.join('\n'));
    for (const [i, file] of bad.entries()) assert.ok(problems[i]!.endsWith(`: ${file.slice('extension/'.length)}`), problems[i]);
    assert.match(problems[4]!, /another platform's runtime/);
    assert.match(problems[5]!, /a win32-x64 binary/);
    assert.match(problems[7]!, /a node_modules package besides the runtime/);
  });
});
