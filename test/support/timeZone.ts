// Tests of what reads in the user's time: the process's time zone set for the rest of the test, and put back after
// it (Node reads TZ again whenever it changes). Registers the afterEach that puts it back.

/** Call in a describe: returns `set(zone)`, which moves this process to `zone` until the end of the running test. */
export function useTimeZone(): (zone: string) => void {
  const original = process.env.TZ;
  afterEach(() => {
    if (original === undefined) delete process.env.TZ;
    else process.env.TZ = original;
  });
  return (zone) => {
    process.env.TZ = zone;
  };
}
