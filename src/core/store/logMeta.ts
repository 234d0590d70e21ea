// A log row's meta, read back: a JSON object, or an empty one for anything else. Meta is advisory (routes, usage,
// references, windows, where a prompt was delivered), so a bad value reads as "nothing recorded", never as an error.

export function parseLogMeta(raw: string | null): Record<string, unknown> {
  if (!raw) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
