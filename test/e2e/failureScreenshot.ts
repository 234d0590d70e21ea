// What a failed UI test leaves behind for whoever reads the CI log: a screenshot of the workbench, named after the test.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'mocha';
import type { Page } from 'playwright-core';

export async function saveFailureScreenshot(page: Page, test: Test, resultsDir: string, prefix: string): Promise<void> {
  const name = test
    .fullTitle()
    .replace(/[^a-z0-9]+/gi, '-')
    .slice(0, 80);
  await mkdir(resultsDir, { recursive: true });
  const file = join(resultsDir, `${prefix}${name}.png`);
  await page.screenshot({ path: file }).then(
    () => process.stderr.write(`    screenshot of the failure: ${file}\n`),
    () => undefined,
  );
}
