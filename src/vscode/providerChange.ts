// What a change of baton.provider.* (or its API key) does to the running Copilot runtime. The runtime is restarted
// only when the provider Baton uses really changed: a key its type does not read (the Copilot provider and a base
// URL), or a repository's .vscode/settings.json naming a value Baton does not apply, changed nothing, yet every running
// worker failed ("the Copilot runtime was restarted") with no word to the user, on a git checkout. A real change
// waits for the workers running at that moment, and says so. Pure (no vscode import): unit-tested in plain Node.
import type { ProviderSettings } from '../core/copilot/agentSessions';

export type ProviderChange = { kind: 'none' } | { kind: 'restart' } | { kind: 'after-workers'; running: string[] };

export function providerChange(current: ProviderSettings, next: ProviderSettings, running: readonly string[]): ProviderChange {
  const same = current.type === next.type && (current.baseUrl ?? '') === (next.baseUrl ?? '') && (current.apiKey ?? '') === (next.apiKey ?? '');
  if (same) return { kind: 'none' };
  return running.length ? { kind: 'after-workers', running: [...running] } : { kind: 'restart' };
}

/** Resolves once `running()` names no worker, checked at each change of the workers (`onChange`). */
export function whenNoWorkerRuns(running: () => readonly string[], onChange: (listener: () => void) => () => void): Promise<void> {
  if (!running().length) return Promise.resolve();
  return new Promise((resolve) => {
    const off = onChange(() => {
      if (running().length) return;
      off();
      resolve();
    });
  });
}
