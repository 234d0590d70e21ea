/**
 * The mocha runner VS Code loads inside the extension host (`--extensionTestsPath`, bundled by `node esbuild.mjs
 * --tests` into out/e2e/index.js, with mocha left external). VS Code calls run() once the window is up and reports
 * its outcome as the window's exit code.
 */
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000 });
  // The test files use mocha's globals (describe/it), which exist only after pre-require; so each file is required
  // here, not imported at the top, where esbuild would evaluate it before run().
  mocha.suite.emit('pre-require', globalThis, 'out/e2e/index.js', mocha);
  require('./extension.e2e.test');
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} in-host e2e test(s) failed`)) : resolve()));
  });
}
