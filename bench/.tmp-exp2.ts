import initSqlJs from 'sql.js';
(async () => {
  const SQL: any = await initSqlJs();
  for (const mode of ['', 'PRAGMA journal_mode = MEMORY', 'PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF', 'PRAGMA journal_mode = OFF']) {
    const db = new SQL.Database();
    db.exec('PRAGMA cache_size = -16384');
    if (mode) db.exec(mode);
    db.exec('create table t(id integer primary key, x text)');
    const s = db.prepare('insert into t(id, x) values (?, ?)');
    const m = db.prepare('select max(id) from t');
    let t = performance.now();
    for (let i = 0; i < 10000; i++) { m.step(); m.reset(); s.run([i + 1, 'x'.repeat(200)]); }
    console.log(mode || 'default', 'per insert µs', ((performance.now() - t) / 10000 * 1000).toFixed(1));
    t = performance.now(); for (let i = 0; i < 10; i++) db.export(); console.log('  export', (performance.now() - t) / 10);
    db.close();
  }
})();
