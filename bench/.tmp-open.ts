import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlJsStore } from '../src/core/store/sqlJsStore';
import { loadSqlJs } from '../src/core/store/loadSqlJs';
(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'prof-'));
  const s = await SqlJsStore.open({ dir, pruneLog: false, pollIntervalMs: 0 });
  for (let i = 0; i < 42000; i++) s.appendLog({ role: 'user', content: 'The auth service validates the JWT, then looks the session up in Redis; expiry is checked twice. '.repeat(2) });
  await s.close();
  const SQL = await loadSqlJs();
  for (let k = 0; k < 3; k++) {
    let t = performance.now(); const bytes = await readFile(s.path); const tr = performance.now() - t;
    t = performance.now(); const db = new SQL.Database(bytes); const to = performance.now() - t;
    t = performance.now(); db.exec('PRAGMA quick_check(1)'); const tq = performance.now() - t;
    t = performance.now(); db.exec('PRAGMA user_version'); db.exec("select count(*) from sqlite_master"); const tm = performance.now() - t;
    console.log({ read: tr.toFixed(1), open: to.toFixed(1), quick: tq.toFixed(1), meta: tm.toFixed(1), size: bytes.length });
    db.close();
    t = performance.now(); const st = await SqlJsStore.open({ dir, pruneLog: false, pollIntervalMs: 0 }); console.log('store open', (performance.now() - t).toFixed(1)); await st.close();
  }
})();
