// Commands whose implementation needs the core (the worker pool, the store), which is built just
// after activation. VS Code may run such a command the moment Baton activates (from the palette or
// a tree), so the ids are registered at once and each call waits for its implementation.
// If the core cannot be built, the reason is kept: a call waiting then, and every call after, is answered at once with
// it (host.refused), never left waiting for an implementation that will not come.
// Only types from vscode: what it needs of VS Code is passed in (CommandHost), so its unit test runs in plain Node.
import type * as vscode from 'vscode';

// Command arguments come from VS Code untyped; each handler declares what it takes.
type Handler = (...args: never[]) => unknown;

/** Why the core could not be built; what a refused call is answered with. */
export class StartFailure extends Error {
  constructor(readonly reason: unknown) {
    super(
      `Baton did not start: ${reason instanceof Error ? reason.message : String(reason)}. Its Doctor report says what could be checked without it; reload the window to try again.`,
    );
    this.name = 'StartFailure';
  }
}

/** What the declared commands need of VS Code. */
export interface CommandHost {
  /** vscode.commands.registerCommand. */
  registerCommand(id: string, run: (...args: unknown[]) => unknown): vscode.Disposable;
  /**
   * Tells the user that `id` cannot run, and why; its result is the call's. Told here rather than by a rejection: VS
   * Code shows a failed command's error only from some places (the palette, a tree's menu, worded as the extension's
   * bug), and not from a welcome view's link; told by both, the user would read it twice.
   */
  refused(id: string, failure: StartFailure): unknown;
}

interface Slot {
  promise: Promise<Handler | StartFailure>;
  resolve(outcome: Handler | StartFailure): void;
}

const slots = new Map<string, Slot>();
/** Set once the core failed to build: every slot made after it starts settled with it. */
let failure: StartFailure | undefined;

function slot(id: string): Slot {
  let entry = slots.get(id);
  if (!entry) {
    let resolve!: (outcome: Handler | StartFailure) => void;
    const promise = new Promise<Handler | StartFailure>((res) => (resolve = res));
    entry = { promise, resolve };
    if (failure) resolve(failure);
    slots.set(id, entry);
  }
  return entry;
}

/** Registers the ids now; each call waits for provideCommand(id, …), or is refused once failDeclaredCommands ran. */
export function declareCommands(ids: readonly string[], host: CommandHost): vscode.Disposable {
  const registered = ids.map((id) =>
    host.registerCommand(id, async (...args: unknown[]) => {
      const outcome = await slot(id).promise;
      if (outcome instanceof StartFailure) return host.refused(id, outcome);
      // VS Code passes whatever the caller gave; the handler checks what it takes.
      return outcome(...(args as never[]));
    }),
  );
  return {
    dispose: () => {
      for (const d of registered) d.dispose();
      slots.clear();
      failure = undefined;
    },
  };
}

/** Supplies the implementation of a declared command. */
export function provideCommand(id: string, handler: Handler): vscode.Disposable {
  slot(id).resolve(handler);
  return { dispose: () => slots.delete(id) };
}

/** The core could not be built: every waiting and future call is refused with why (an implemented one still runs). */
export function failDeclaredCommands(err: unknown): void {
  failure = new StartFailure(err);
  for (const entry of slots.values()) entry.resolve(failure);
}
