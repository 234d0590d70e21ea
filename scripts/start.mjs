// `npm start`: builds Baton and opens a real VS Code with it loaded. Desktop VS Code when `code` is
// on PATH; otherwise code-server (provisioned into .vscode-test/) on 127.0.0.1, URL printed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { provisionVscode, repoRoot } from './provisionVscode.mjs';

const build = spawnSync('node', ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const folder = process.argv[2] ? path.resolve(process.argv[2]) : repoRoot;
const hasCode = spawnSync('sh', ['-c', 'command -v code'], { encoding: 'utf8' }).status === 0;
if (hasCode && !process.env.BATON_USE_CODE_SERVER) {
  const child = spawn('code', ['--extensionDevelopmentPath', repoRoot, folder], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  const { codeServerEntry } = await provisionVscode();
  const state = path.join(repoRoot, '.vscode-test', 'start');
  const userData = path.join(state, 'user-data');
  mkdirSync(path.join(userData, 'User'), { recursive: true });
  const settingsFile = path.join(userData, 'User', 'settings.json');
  if (!existsSync(settingsFile)) writeFileSync(settingsFile, JSON.stringify({ 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off' }, null, 2));
  const port = Number(process.env.PORT) || (await freePort());
  const args = [
    codeServerEntry,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir',
    userData,
    '--extensions-dir',
    path.join(state, 'extensions'),
  ];
  const server = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  const payload = encodeURIComponent(JSON.stringify([['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${repoRoot}`]]));
  console.log(
    `\nBaton is loaded in VS Code (code-server). Open:\n\n  http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}&payload=${payload}\n\nCtrl+C stops it.`,
  );
  const stop = () => server.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  server.on('exit', (code) => process.exit(code ?? 0));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
