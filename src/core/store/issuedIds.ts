// Row ids this store handed out that another window's write may have forced it to change.
//
// Inserts return their id at once, before the row reaches disk. If another window wrote the same id first, replaying
// our insert on top of its file gives our row a new id; callers still hold the old one. This class keeps that
// mapping so `updateLog(oldId)` keeps reaching our row, and tells apart "an id we issued" from "an id read back from
// the table", which after a move can be the same number for two different rows.

/** How a journaled operation names its row: one we inserted (followed through moves), or one read from disk. */
export type RowRef = { own: number } | { id: number };

export class IssuedIds {
  /** Issued by operations still in the journal (not yet on disk). */
  private readonly pending = new Set<number>();
  /** Issued id → the id the row has now, for rows a replay moved. */
  private readonly moved = new Map<number, number>();
  /** Moved ids that a listing has since shown for another row; callers using them mean that row. */
  private readonly shadowed = new Set<number>();

  constructor(private readonly shadowOnList: boolean) {}

  issue(id: number): void {
    this.pending.add(id);
  }

  /** The issuing operation is on disk now. */
  settle(id: number): void {
    this.pending.delete(id);
  }

  /** A replay gave the row issued as `issued` the id `current`. */
  move(issued: number, current: number): void {
    if (issued === current) this.moved.delete(issued);
    else this.moved.set(issued, current);
    this.shadowed.delete(issued);
  }

  /** What a caller means by `id`, frozen so that a later replay resolves it the same way. */
  ref(id: number): RowRef {
    const ours = this.moved.has(id) ? !this.shadowed.has(id) : this.pending.has(id);
    return ours ? { own: id } : { id };
  }

  /** The row's id in the current database. */
  resolve(ref: RowRef): number {
    return 'own' in ref ? (this.moved.get(ref.own) ?? ref.own) : ref.id;
  }

  /**
   * A listing returned a row with this id. For tables whose ids come back to us through listings (memories shown in
   * the tree, inbox rows), the newest meaning wins; the log keeps the issuer's meaning, because the orchestrator
   * settles its turn by the id appendLog gave it.
   */
  listed(id: number): void {
    if (this.shadowOnList && this.moved.has(id)) this.shadowed.add(id);
  }
}
