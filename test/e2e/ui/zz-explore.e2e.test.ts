import { ui } from './fixture';
describe('explore', function () {
  this.timeout(90_000);
  it('looks', async () => {
    const { page } = ui();
    await page.waitForTimeout(2000);
    console.log(await page.evaluate(async () => {
      const db: IDBDatabase = await new Promise((res, rej) => { const r = indexedDB.open('vscode-web-db'); r.onsuccess = () => res(r.result); r.onerror = rej; });
      const out: string[] = [];
      for (const name of Array.from(db.objectStoreNames)) {
        const keys: unknown[] = await new Promise((res) => { const r = db.transaction(name).objectStore(name).getAllKeys(); r.onsuccess = () => res(r.result); });
        out.push(`${name}: ${JSON.stringify(keys).slice(0, 500)}`);
      }
      return out.join('\n');
    }));
  });
});
