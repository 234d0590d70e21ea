import initSqlJs from 'sql.js';
(async () => {
  const SQL: any = await initSqlJs();
  console.log('FS?', typeof SQL.FS);
  for (const cache of [0, -16384, -65536]) {
    const db = new SQL.Database();
    if (cache) db.exec(`PRAGMA cache_size = ${cache}`);
    db.exec('create table t(id integer primary key, x text)');
    const s = db.prepare('insert into t(x) values (?)');
    db.exec('BEGIN'); for (let i = 0; i < 10000; i++) s.run(['x'.repeat(200)]); db.exec('COMMIT');
    let t = performance.now(); let b; for (let i = 0; i < 10; i++) b = db.export(); console.log('cache', cache, 'export', (performance.now() - t) / 10, b.length);
    // after writes in separate transactions
    for (let i = 0; i < 20; i++) s.run(['y']);
    t = performance.now(); for (let i = 0; i < 10; i++) b = db.export(); console.log('  after small writes', (performance.now() - t) / 10);
    db.close();
  }
})();
