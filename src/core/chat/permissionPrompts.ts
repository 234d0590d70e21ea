// Permission requests (workers', a conversation's MCP tools) waiting in the panel for the user's answer. Each is
// answered once: by the user, or denied when the asker stops waiting or the panel goes away for good; an answer to a
// request no longer open (a second click, another window's stale panel) is ignored.
import type { HostMessageBody, PermissionDecision, PermissionPrompt } from '../../shared/protocol';

export class PermissionPrompts {
  private readonly open = new Map<string, { prompt: PermissionPrompt; resolve: (d: PermissionDecision) => void }>();
  private counter = 0;

  constructor(private readonly send: (body: HostMessageBody) => void) {}

  /** The open requests, for a snapshot. */
  get prompts(): PermissionPrompt[] {
    return [...this.open.values()].map((p) => p.prompt);
  }

  /**
   * Shows a request inline and waits for the user's answer. When `signal` aborts (the worker was stopped, the turn that
   * asked ended), the request goes from the panel, denied: a prompt nobody waits for would stay open for good, and
   * Baton would count a question open (no idle restart, every turn "awaiting input").
   */
  ask(prompt: Omit<PermissionPrompt, 'id'>, signal?: AbortSignal): Promise<PermissionDecision> {
    const id = `perm-${++this.counter}`;
    if (signal?.aborted) return Promise.resolve('deny');
    return new Promise<PermissionDecision>((resolve) => {
      const full = { ...prompt, id };
      const withdraw = (): void => this.answer(id, 'deny');
      signal?.addEventListener('abort', withdraw, { once: true });
      this.open.set(id, {
        prompt: full,
        resolve: (d) => {
          signal?.removeEventListener('abort', withdraw);
          resolve(d);
        },
      });
      this.send({ type: 'permission/request', request: full });
    });
  }

  /** The user's answer; ignored when the request is no longer open. */
  answer(id: string, decision: PermissionDecision): void {
    const entry = this.open.get(id);
    if (!entry) return;
    this.open.delete(id);
    entry.resolve(decision);
    this.send({ type: 'permission/resolved', id });
  }

  /** Denies every open request (the panel is going away for good). */
  denyAll(): void {
    for (const [id, entry] of this.open) {
      entry.resolve('deny');
      this.send({ type: 'permission/resolved', id });
    }
    this.open.clear();
  }
}
