import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { batonView, ui } from './fixture';
describe('explore', function () {
  this.timeout(90_000);
  it('looks', async () => {
    const { page, vscode } = ui();
    console.log(await readFile(join(vscode.userDataDir, 'User', 'settings.json'), 'utf8'));
    for (let i = 0; i < 10; i++) {
      console.log('wb class', await page.locator('.monaco-workbench').first().getAttribute('class'));
      await page.waitForTimeout(1000);
    }
  });
});
