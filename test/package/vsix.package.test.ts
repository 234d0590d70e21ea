/**
 * The .vsix `npm run package` builds for this platform, read back from the zip: everything it needs and nothing that
 * should not ship (test/support/vsixRules.ts). Run by `npm test`'s package layer right after it packages.
 */
import * as assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { RUNTIME_OF_TARGET, vsixProblems } from '../support/vsixRules';
import { WEBVIEW_COMPILE_HINT } from '../support/webviewPage';
import { readZipEntry, zipEntries } from '../support/zipEntries';

const ROOT = resolve(__dirname, '../..');
const TARGET = Object.keys(RUNTIME_OF_TARGET).find((t) => t === `${process.platform}-${process.arch}`) ?? `${process.platform}-${process.arch}`;
const VSIX = resolve(ROOT, `baton-${TARGET}.vsix`);

describe(`the packaged baton-${TARGET}.vsix`, () => {
  it('carries what Baton needs and nothing that should not ship', async () => {
    assert.ok(existsSync(VSIX), `${VSIX} exists (npm run package builds it)`);
    const entries = await zipEntries(VSIX);
    assert.deepEqual(
      vsixProblems(
        entries.map((e) => e.path),
        ROOT,
        TARGET,
      ),
      [],
    );
    const mb = (n: number) => (n / 2 ** 20).toFixed(1);
    const unpacked = entries.reduce((sum, e) => sum + e.size, 0);
    console.log(`      ${entries.length} files, ${mb(statSync(VSIX).size)} MB (${mb(unpacked)} MB unpacked)`);
  });

  it('is marked for its platform, as a preview, with the icon', async () => {
    const manifest = await readZipEntry(VSIX, 'extension.vsixmanifest');
    assert.match(manifest, new RegExp(`TargetPlatform="${TARGET}"`));
    assert.match(manifest, /<GalleryFlags>[^<]*Preview[^<]*<\/GalleryFlags>/);
    assert.match(manifest, /<Icon>extension\/media\/icon\.png<\/Icon>/);
    assert.match(manifest, /Microsoft\.VisualStudio\.Services\.Content\.License" Path="extension\/LICENSE\.txt"/);
    assert.match(manifest, /Microsoft\.VisualStudio\.Services\.Content\.Changelog" Path="extension\/changelog\.md"/);
  });

  it("ships the webview bundle without V8's compile hint (written into the page, V8 compiles only what the first paint calls)", async () => {
    const js = await readZipEntry(VSIX, 'extension/dist/webview.js');
    assert.ok(js.length > 100_000, 'the webview bundle is in the package');
    assert.ok(!js.includes(WEBVIEW_COMPILE_HINT), 'the webview bundle carries the compile hint');
  });
});
