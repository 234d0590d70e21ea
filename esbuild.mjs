// Builds the bundles: the extension host (Node, CommonJS) and the webview's two (browser, IIFE), and its stylesheet.
// `vscode` is provided by the host; the Copilot runtime package is a native, per-platform
// binary that the SDK finds with require.resolve, so it ships beside the bundle (see .vscodeignore).
import * as esbuild from 'esbuild';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const withTests = process.argv.includes('--tests');

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'info' };

const hostOptions = {
  ...common,
  entryPoints: { extension: 'src/extension.ts' },
  outdir: 'dist',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // koffi is only loaded by the SDK's in-process runtime host, which Baton never uses.
  external: ['vscode', 'koffi', '@github/copilot-sdk-*'],
};

const webviewOptions = {
  ...common,
  entryPoints: { webview: 'webview/main.ts' },
  outdir: 'dist',
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  loader: { '.css': 'text' },
  // markdown-it needs only the decoder; the package's index also builds the 23 KB encode table at load.
  alias: { entities: 'entities/lib/decode.js' },
  // No compile hint (`//# allFunctionsCalledOnLoad`): written into the page, the script is compiled on the main thread,
  // and compiling every function at once cost more than compiling those the first paint calls, at their first call,
  // since highlight.js left the bundle (docs/performance.md, note 4).
};

// The code highlighter (highlight.js and its grammars, about 95 KB) is a bundle of its own: the host writes it into the
// page as text that does not run, and the panel runs it after its first paint (webview/highlighter.ts). No compile
// hint: it is compiled a function at a time as grammars are used, in idle time.
const highlighterOptions = {
  ...common,
  entryPoints: { 'webview-highlighter': 'webview/highlighterBundle.ts' },
  outdir: 'dist',
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
};

// Styles are a file of their own: the host writes it into the page in a <style> with the page's nonce (the CSP admits
// no other inline style).
const stylesOptions = {
  ...common,
  entryPoints: { webview: 'webview/styles.css' },
  outdir: 'dist',
};

// The in-host e2e suite runs inside the extension host, so it is built like the host bundle.
const e2eOptions = {
  ...common,
  entryPoints: ['test/e2e/suite/index.ts'],
  outdir: 'out/e2e',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode', 'mocha'],
};

async function copyWasm() {
  await mkdir('dist', { recursive: true });
  await copyFile(require.resolve('sql.js/dist/sql-wasm.wasm'), 'dist/sql-wasm.wasm');
}

// The empty database at the newest schema, which a first start loads instead of running every migration
// (src/core/store/freshDatabase.ts). Built from the same migrations, by the same code, in this build.
async function writeFreshDatabase() {
  const outfile = 'out/freshDatabase.cjs';
  await esbuild.build({
    stdin: {
      contents: "export { freshDatabaseImage } from './src/core/store/freshDatabase';\nexport { loadSqlJs } from './src/core/store/loadSqlJs';",
      resolveDir: '.',
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    external: ['sql.js'],
    logLevel: 'warning',
  });
  delete require.cache[require.resolve(`./${outfile}`)];
  const { freshDatabaseImage, loadSqlJs } = require(`./${outfile}`);
  await writeFile('dist/baton-fresh.sqlite', freshDatabaseImage(await loadSqlJs()));
}

const all = [hostOptions, webviewOptions, highlighterOptions, stylesOptions, ...(withTests ? [e2eOptions] : [])];
await copyWasm();
await writeFreshDatabase();
if (watch) {
  for (const options of all) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  }
} else {
  await Promise.all(all.map((options) => esbuild.build(options)));
}
