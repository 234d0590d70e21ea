// The real sql.js store on disk, with a record of the writes a test wants to see the order of
// (worker rows and inbox rows). Everything still goes through SqlJsStore, as it does for users.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import type { BatonStore, InboxRow } from '../../src/core/store/types';

export interface WriteRecord {
  /** `method:key` for every worker / inbox write, in order. */
  readonly writes: string[];
  /** Every inbox row added (delivered or not), as it was added. */
  readonly inbox: Array<Pick<InboxRow, 'id' | 'worker_name' | 'origin' | 'kind' | 'content'>>;
}

export type RecordingStore<S extends BatonStore = SqlJsStore> = S & WriteRecord;

export async function openRecordingStore(dir?: string): Promise<RecordingStore> {
  return recordWrites(await SqlJsStore.open({ dir: dir ?? (await mkdtemp(join(tmpdir(), 'baton-store-'))), flushDelayMs: 20 }));
}

/**
 * Records the worker and inbox writes of a store already in use (the one createBatonCore opened):
 * the methods are wrapped on the instance, so every component holding it is recorded.
 */
export function recordWrites<S extends BatonStore>(target: S): RecordingStore<S> {
  const store = target as RecordingStore<S>;
  const writes: string[] = [];
  const inbox: WriteRecord['inbox'] = [];
  Object.assign(store, { writes, inbox });
  const upsertWorker = store.upsertWorker.bind(store);
  store.upsertWorker = (row) => {
    writes.push(`upsertWorker:${row.name}`);
    upsertWorker(row);
  };
  const deleteWorker = store.deleteWorker.bind(store);
  store.deleteWorker = (name) => {
    writes.push(`deleteWorker:${name}`);
    deleteWorker(name);
  };
  const addInbox = store.addInbox.bind(store);
  store.addInbox = (row) => {
    const id = addInbox(row);
    writes.push(`addInbox:${row.worker_name}`);
    inbox.push({ id, ...row });
    return id;
  };
  const markInboxDelivered = store.markInboxDelivered.bind(store);
  store.markInboxDelivered = (id) => {
    writes.push(`markInboxDelivered:${id}`);
    markInboxDelivered(id);
  };
  return store;
}
