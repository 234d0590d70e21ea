// A BatonStore in plain memory, for tests of code that only needs the store's contract (workers,
// inbox, state). Same ordering and dedup rules as the real one where tests rely on them.
import type {
  BatonStore,
  CheckpointRow,
  InboxRow,
  LogEntry,
  LogRole,
  LogStatus,
  Memory,
  MemoryCategory,
  MemorySource,
  WorkerRow,
} from '../../src/core/store/types';

type Change = Parameters<Parameters<BatonStore['onDidChange']>[0]>[0];

export class InMemoryStore implements BatonStore {
  readonly state = new Map<string, string>();
  readonly log: LogEntry[] = [];
  readonly checkpoints: CheckpointRow[] = [];
  readonly memories: Memory[] = [];
  readonly workers = new Map<string, WorkerRow>();
  readonly inbox: InboxRow[] = [];
  /** Every write, in order, e.g. ['upsertWorker:x', 'addInbox:x', 'deleteWorker:x']. */
  readonly writes: string[] = [];
  private seq = 0;
  private readonly listeners = new Set<(what: Change) => void>();

  private changed(what: Change, write: string): void {
    this.writes.push(write);
    for (const l of [...this.listeners]) l(what);
  }

  private ts(): string {
    return new Date().toISOString();
  }

  getState(key: string): string | undefined {
    return this.state.get(key);
  }
  setState(key: string, value: string): void {
    this.state.set(key, value);
    this.changed('state', `setState:${key}`);
  }
  deleteState(key: string): void {
    this.state.delete(key);
    this.changed('state', `deleteState:${key}`);
  }

  appendLog(entry: { role: LogRole; content: string; source?: string; status?: LogStatus | null; meta?: string | null }): number {
    const id = ++this.seq;
    this.log.push({ id, role: entry.role, content: entry.content, source: entry.source ?? '', status: entry.status ?? null, meta: entry.meta ?? null, ts: this.ts() });
    this.changed('log', 'appendLog');
    return id;
  }
  updateLog(id: number, patch: { content?: string; status?: LogStatus; meta?: string | null }): void {
    const e = this.log.find((x) => x.id === id);
    if (e) Object.assign(e, patch);
    this.changed('log', 'updateLog');
  }
  recentLog(limit: number): LogEntry[] {
    return this.log.slice(-limit);
  }
  markInterrupted(): LogEntry[] {
    const hit = this.log.filter((e) => e.role === 'user' && e.status === 'pending');
    for (const e of hit) e.status = 'interrupted';
    return hit;
  }
  clearLog(): void {
    this.log.length = 0;
    this.changed('log', 'clearLog');
  }

  addCheckpoint(row: { turn_index: number; fingerprint: string; route: string | null; status: string }): void {
    this.checkpoints.push({ id: ++this.seq, ...row, ts: this.ts() });
    if (this.checkpoints.length > 200) this.checkpoints.shift();
    this.changed('checkpoints', 'addCheckpoint');
  }
  recentCheckpoints(limit: number): CheckpointRow[] {
    return this.checkpoints.slice(-limit).reverse();
  }

  addMemory(category: MemoryCategory, content: string, source: MemorySource): { memory: Memory; duplicate: boolean } {
    const existing = this.memories.find((m) => m.content.toLowerCase() === content.toLowerCase());
    if (existing) return { memory: existing, duplicate: true };
    const memory: Memory = { id: ++this.seq, category, content, source, created_at: this.ts(), last_accessed: this.ts() };
    this.memories.push(memory);
    this.changed('memories', 'addMemory');
    return { memory, duplicate: false };
  }
  searchMemories(query: { keyword?: string; category?: MemoryCategory; limit?: number }): Memory[] {
    return this.memories
      .filter((m) => (!query.category || m.category === query.category) && (!query.keyword || m.content.toLowerCase().includes(query.keyword.toLowerCase())))
      .slice(0, query.limit ?? 20);
  }
  updateMemory(id: number, content: string): boolean {
    const m = this.memories.find((x) => x.id === id);
    if (!m) return false;
    m.content = content;
    this.changed('memories', 'updateMemory');
    return true;
  }
  deleteMemory(id: number): boolean {
    const i = this.memories.findIndex((x) => x.id === id);
    if (i < 0) return false;
    this.memories.splice(i, 1);
    this.changed('memories', 'deleteMemory');
    return true;
  }
  listMemories(): Memory[] {
    return [...this.memories];
  }

  upsertWorker(row: Omit<WorkerRow, 'created_at' | 'updated_at'>): void {
    const prev = this.workers.get(row.name);
    this.workers.set(row.name, { ...row, created_at: prev?.created_at ?? this.ts(), updated_at: this.ts() });
    this.changed('workers', `upsertWorker:${row.name}:${row.status}`);
  }
  deleteWorker(name: string): void {
    this.workers.delete(name);
    this.changed('workers', `deleteWorker:${name}`);
  }
  listWorkers(): WorkerRow[] {
    return [...this.workers.values()];
  }

  addInbox(row: { worker_name: string; origin: string; kind: InboxRow['kind']; content: string }): number {
    const id = ++this.seq;
    this.inbox.push({ id, ...row, delivered: 0, ts: this.ts() });
    this.changed('inbox', `addInbox:${row.worker_name}`);
    return id;
  }
  markInboxDelivered(id: number): void {
    const row = this.inbox.find((r) => r.id === id);
    if (row) row.delivered = 1;
    this.changed('inbox', `markInboxDelivered:${id}`);
  }
  undeliveredInbox(): InboxRow[] {
    return this.inbox.filter((r) => r.delivered === 0);
  }

  async flush(): Promise<void> {}
  integrityCheck(): string[] {
    return [];
  }
  onDidChange(listener: (what: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  async close(): Promise<void> {
    this.listeners.clear();
  }
}
