// Decides what to do with each host message from its sequence number. The host numbers every message; a snapshot
// carries the number it is current at. Anything after a gap is unusable (a delta applied to the wrong text is
// worse than none), so the webview asks for a snapshot and drops messages until one arrives.

export type SeqDecision = 'apply' | 'ignore' | 'request';

export class SeqGate {
  private last: number | undefined;
  private waiting = true;

  /** True until the first snapshot, and again after a gap until the next one. */
  get awaitingSnapshot(): boolean {
    return this.waiting;
  }

  /** Drops everything until the next snapshot (the caller found itself out of sync some other way). */
  invalidate(): void {
    this.waiting = true;
  }

  accept(message: { type: string; seq: number }): SeqDecision {
    if (message.type === 'snapshot') {
      // Always taken, even with a lower number: the host may have restarted its count, and if requests crossed,
      // the next message after an older snapshot shows a gap and brings a fresh one.
      this.last = message.seq;
      this.waiting = false;
      return 'apply';
    }
    if (this.waiting) return 'ignore';
    const last = this.last!;
    if (message.seq === last + 1) {
      this.last = message.seq;
      return 'apply';
    }
    // Already covered by the snapshot we hold (sent before it, delivered after it).
    if (message.seq <= last) return 'ignore';
    this.waiting = true;
    return 'request';
  }
}
