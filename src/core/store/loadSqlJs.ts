import { readFileSync } from 'node:fs';
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
    // The bytes are read synchronously (0.7 MB, about a millisecond): at VS Code's start-up the
    // thread pool behind async reads is busy with every extension's files, and the first message
    // waits on this store (measured: store open 146-273 ms under start-up load with an async read).
    promise = Promise.resolve()
      .then(() => (wasmPath ? readFileSync(wasmPath) : undefined))
      .then((bytes) => initSqlJs(bytes ? { wasmBinary: ownArrayBuffer(bytes) } : undefined));
    // A failed load (a missing wasm) must not be cached, or a later retry could never succeed.
    promise.catch(() => loaded.delete(key));
    loaded.set(key, promise);
  }
  return promise;
}

/**
 * The bytes as an ArrayBuffer holding exactly them. sql.js wraps an ArrayBuffer in a view but copies a typed array, and
 * a file this size read by readFileSync has an ArrayBuffer of its own: handing that over saves copying 0.7 MB on the
 * host's main thread at start-up. A view into a larger buffer (a pooled small read) is copied, so the wasm is never
 * given bytes beyond the file's.
 */
export function ownArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const { buffer, byteOffset, byteLength } = bytes;
  if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength) return buffer;
  return bytes.slice().buffer;
}
