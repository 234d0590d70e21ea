/** Where core writes what it does; the VS Code layer backs it with an output channel, tests with an array. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, err?: unknown): void;
}

export const consoleLogger: Logger = {
  info: (m) => console.log(`[baton] ${m}`),
  warn: (m) => console.warn(`[baton] ${m}`),
  error: (m, err) => console.error(`[baton] ${m}`, err ?? ''),
};

export class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  info(m: string): void {
    this.lines.push(`info ${m}`);
  }
  warn(m: string): void {
    this.lines.push(`warn ${m}`);
  }
  error(m: string, err?: unknown): void {
    this.lines.push(`error ${m}${err ? `: ${err instanceof Error ? err.message : String(err)}` : ''}`);
  }
}
