// The ids new rows get. Log and inbox ids come from the clock (microsecond-sized, with a random tail), so two windows
// writing in the same moment almost never hand out the same id, and ids still sort in time order across windows (two
// rows written in the same millisecond sort either way). Memory ids are the small counters users see ("#12"); a clash
// there is resolved by replay (see IssuedIds).
import { randomInt } from 'node:crypto';
import type { SqlJsTables } from './sqlJsTables';
import type { IssuingTable } from './storeOps';

export class FreshIds {
  /**
   * The highest log / inbox id this database holds, once known: remembered between inserts (a query costs more than
   * the insert itself on the hot path of a turn); forgotten whenever another database takes this one's place.
   */
  private readonly highest = new Map<IssuingTable, number>();

  constructor(private readonly tables: () => SqlJsTables) {}

  next(table: IssuingTable): number {
    const t = this.tables();
    if (table === 'memories') {
      return Math.max(t.number('SELECT max(id) FROM memories'), t.number("SELECT seq FROM sqlite_sequence WHERE name = 'memories'")) + 1;
    }
    const max = this.highest.get(table) ?? t.number(`SELECT max(id) FROM ${table}`);
    const id = Math.max(Date.now() * 1000 + randomInt(1000), max + 1);
    this.highest.set(table, id);
    return id;
  }

  /** Another database took this one's place (the DatabaseFile's `installed` hook). */
  forget(): void {
    this.highest.clear();
  }
}
