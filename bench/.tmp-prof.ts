import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlJsStore } from '../src/core/store/sqlJsStore';
import { nodeStoreFileSystem, type StoreFileSystem } from '../src/core/store/storeFileSystem';
(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'prof-'));
  const times: Record<string, number> = {};
  const fs: StoreFileSystem = Object.fromEntries(Object.entries(nodeStoreFileSystem).map(([k, f]) => [k, async (...a: any[]) => { const t = performance.now(); try { return await (f as any)(...a); } finally { times[k] = (times[k] ?? 0) + performance.now() - t; } }])) as any;
  const store = await SqlJsStore.open({ dir, fs, pruneLog: false, pollIntervalMs: 0, flushDelayMs: 60000 });
  for (let i = 0; i < 10000; i++) store.appendLog({ role: 'user', content: 'x'.repeat(200) });
  await store.flush();
  for (const k of Object.keys(times)) delete times[k];
  const db = (store as any).tables.db;
  let t = performance.now(); for (let i = 0; i < 10; i++) db.export(); console.log('export', (performance.now() - t) / 10);
  t = performance.now();
  for (let i = 0; i < 10; i++) { store.setState('a', String(i)); await store.flush(); }
  console.log('flush', (performance.now() - t) / 10, Object.fromEntries(Object.entries(times).map(([k, v]) => [k, v / 10])));
  console.log(process.env.TMPDIR, tmpdir());
})();
