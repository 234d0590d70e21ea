// Polls a probe until it returns (or resolves to) something truthy (what the tests wait for: an event, a worker state,
// a recorded request, what git says), or fails with what it was waiting for. An async probe is awaited: its promise
// itself is truthy, and a wait on one used to pass at once.
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
