import initSqlJs, { type SqlJsStatic } from 'sql.js';

const loaded = new Map<string, Promise<SqlJsStatic>>();

/**
 * The sql.js module, compiled once per wasm file and shared by every store in the process (compiling the wasm takes
 * tens of milliseconds). Without `wasmPath`, sql.js looks next to its own script: node_modules in tests, dist/ in
 * the bundle.
 */
export function loadSqlJs(wasmPath?: string): Promise<SqlJsStatic> {
  const key = wasmPath ?? '';
  let promise = loaded.get(key);
  if (!promise) {
    promise = initSqlJs(wasmPath ? { locateFile: () => wasmPath } : undefined);
    // A failed load (a missing wasm) must not be cached, or a later retry could never succeed.
    promise.catch(() => loaded.delete(key));
    loaded.set(key, promise);
  }
  return promise;
}
