// Commands whose implementation needs the core (the worker pool, the store), which is built just
// after activation. VS Code may run such a command the moment Baton activates (from the palette or
// a tree), so the ids are registered at once and each call waits for its implementation.
import * as vscode from 'vscode';

// Command arguments come from VS Code untyped; each handler declares what it takes.
type Handler = (...args: never[]) => unknown;

interface Slot {
  promise: Promise<Handler>;
  resolve(handler: Handler): void;
  reject(err: unknown): void;
}

const slots = new Map<string, Slot>();

function slot(id: string): Slot {
  let entry = slots.get(id);
  if (!entry) {
    let resolve!: (h: Handler) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<Handler>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => undefined);
    entry = { promise, resolve, reject };
    slots.set(id, entry);
  }
  return entry;
}

/** Registers the ids now; each call waits for provideCommand(id, …). */
export function declareCommands(ids: readonly string[]): vscode.Disposable {
  return vscode.Disposable.from(
    ...ids.map((id) =>
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        const handler = await slot(id).promise;
        // VS Code passes whatever the caller gave; the handler checks what it takes.
        return handler(...(args as never[]));
      }),
    ),
    { dispose: () => slots.clear() },
  );
}

/** Supplies the implementation of a declared command. */
export function provideCommand(id: string, handler: Handler): vscode.Disposable {
  slot(id).resolve(handler);
  return new vscode.Disposable(() => slots.delete(id));
}

/** The core could not be built: every waiting and future call fails with this error. */
export function failDeclaredCommands(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  for (const entry of slots.values()) entry.reject(new Error(`Baton failed to start: ${message}`));
}
