import * as vscode from 'vscode';
import type { Logger } from '../core/util/logger';

/** Core's Logger backed by the "Baton" output channel (Baton: Show Log). */
export class OutputLog implements Logger, vscode.Disposable {
  readonly channel = vscode.window.createOutputChannel('Baton', { log: true });

  info(message: string): void {
    this.channel.info(message);
  }
  warn(message: string): void {
    this.channel.warn(message);
  }
  error(message: string, err?: unknown): void {
    this.channel.error(err ? `${message}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}` : message);
  }
  show(): void {
    this.channel.show(true);
  }
  dispose(): void {
    this.channel.dispose();
  }
}
