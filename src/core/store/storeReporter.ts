// Where the store's reports go, with the one decision of which ones the user must see.
import type { StoreReport, StoreReportKind } from './types';

// What needs the user now: their data is not reaching disk, or their file was moved. A skipped row or a reload
// merged with another window's writes is worth a log line, not a pop-up.
const USER_MUST_ACT: Record<StoreReportKind, boolean> = {
  'moved-aside': true,
  'save-failed': true,
  'not-saving': true,
  'read-failed': true,
  'saved-again': false,
  'bad-row': false,
  'newer-schema': false,
  'change-dropped': false,
};

export class StoreReporter {
  private readonly reportedKeys = new Set<string>();

  constructor(private readonly sink: ((r: StoreReport) => void) | undefined) {}

  report(kind: StoreReportKind, level: StoreReport['level'], message: string): void {
    const report: StoreReport = { level, kind, userMustAct: USER_MUST_ACT[kind], message };
    if (this.sink) this.sink(report);
    else console.warn(`[baton store] ${level}: ${message}`);
  }

  /** Reports only the first time `key` is seen: a bad row read on every refresh is one report, not hundreds. */
  reportOnce(key: string, kind: StoreReportKind, level: StoreReport['level'], message: string): void {
    if (this.reportedKeys.has(key)) return;
    this.reportedKeys.add(key);
    this.report(kind, level, message);
  }
}
