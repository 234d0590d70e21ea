// Readers for the settings that are not numbers (numberSetting.ts reads those), as a user may have written them in
// settings.json: VS Code hands over whatever JSON is there, whatever type package.json declares. A value of the wrong
// type reads as the default (a list keeps its good items) and is named, so no turn fails on `.filter is not a
// function` and the user learns which setting to fix; the user's own value is left as it is.

/** The value to use; `problem` says, for the user, why it is not what they set. */
export interface SettingReading<T> {
  value: T;
  problem?: string;
}

export interface TextOptions {
  /** A value that may hold a secret (a proxy URL with its password): the problem names its type, never the value. */
  secret?: boolean;
}

/** The value as a user reads it in settings.json; a long one is cut, so a problem stays one line. */
function shown(raw: unknown, secret = false): string {
  if (secret) return kind(raw);
  const text = JSON.stringify(raw) ?? String(raw);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function kind(raw: unknown): string {
  if (raw === null) return 'null';
  if (Array.isArray(raw)) return 'a list';
  if (typeof raw === 'string') return 'text';
  if (typeof raw === 'boolean') return 'true or false';
  return typeof raw === 'object' ? 'an object' : `a ${typeof raw}`;
}

function fallbackText(value: unknown): string {
  if (value === '' || (Array.isArray(value) && !value.length)) return 'none';
  return JSON.stringify(value);
}

function wrongType(name: string, raw: unknown, expected: string, fallback: unknown, secret = false): string {
  return `${name} has a value of the wrong type (${shown(raw, secret)}): it must be ${expected}. Baton uses the default, ${fallbackText(fallback)}, until it is fixed.`;
}

/** Text (trimmed). undefined: not set. */
export function readTextSetting(name: string, raw: unknown, fallback: string, options: TextOptions = {}): SettingReading<string> {
  if (raw === undefined) return { value: fallback };
  if (typeof raw === 'string') return { value: raw.trim() };
  return { value: fallback, problem: wrongType(name, raw, 'text', fallback, options.secret) };
}

export function readFlagSetting(name: string, raw: unknown, fallback: boolean): SettingReading<boolean> {
  if (raw === undefined) return { value: fallback };
  if (typeof raw === 'boolean') return { value: raw };
  return { value: fallback, problem: wrongType(name, raw, 'true or false', fallback) };
}

/** One of `choices`; anything else reads as `fallback`, the setting's default. */
export function readChoiceSetting<T extends string>(name: string, raw: unknown, choices: readonly T[], fallback: T): SettingReading<T> {
  if (raw === undefined) return { value: fallback };
  if ((choices as readonly unknown[]).includes(raw)) return { value: raw as T };
  const expected = `one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`;
  if (typeof raw !== 'string') return { value: fallback, problem: wrongType(name, raw, expected, fallback) };
  return {
    value: fallback,
    problem: `${name} is ${shown(raw)}, but it must be ${expected}. Baton uses the default, ${fallbackText(fallback)}, until it is fixed.`,
  };
}

/**
 * A list of text. A lone text reads as a list of that one entry (`"protectedPaths": "/srv/secrets"` means that path, and
 * never its characters); items that are not text are left out; blank ones mean nothing and are dropped.
 */
export function readTextListSetting(name: string, raw: unknown, fallback: readonly string[]): SettingReading<string[]> {
  if (raw === undefined) return { value: [...fallback] };
  if (typeof raw === 'string') {
    return {
      value: raw.trim() ? [raw.trim()] : [],
      problem: `${name} is the text ${shown(raw)}, but it must be a list of text. Baton takes it as a list of that one entry until it is fixed.`,
    };
  }
  if (!Array.isArray(raw)) return { value: [...fallback], problem: wrongType(name, raw, 'a list of text', fallback) };
  const bad = raw.filter((e) => typeof e !== 'string');
  const value = raw.filter((e): e is string => typeof e === 'string' && e.trim() !== '').map((e) => e.trim());
  if (!bad.length) return { value };
  return {
    value,
    problem: `${name} has ${bad.length === 1 ? 'an item' : 'items'} of the wrong type (${bad.map((e) => shown(e)).join(', ')}): each must be text. Baton leaves ${bad.length === 1 ? 'it' : 'them'} out until ${bad.length === 1 ? 'it is' : 'they are'} fixed.`,
  };
}

/** An object of text values under `keys` (other keys are left for VS Code's settings UI to flag); blank values are unset. */
export function readTextMapSetting<K extends string>(name: string, raw: unknown, keys: readonly K[]): SettingReading<Partial<Record<K, string>>> {
  if (raw === undefined) return { value: {} };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { value: {}, problem: wrongType(name, raw, 'an object', {}) };
  const value: Partial<Record<K, string>> = {};
  const bad: string[] = [];
  for (const key of keys) {
    const entry = (raw as Record<string, unknown>)[key];
    if (typeof entry === 'string') {
      if (entry.trim()) value[key] = entry.trim();
    } else if (entry !== undefined) bad.push(key);
  }
  if (!bad.length) return { value };
  return {
    value,
    problem: `${name} has a value of the wrong type under ${bad.join(', ')}: each must be text. Baton uses the default for ${bad.length === 1 ? 'it' : 'them'} until it is fixed.`,
  };
}

/** An environment variable's name as a problem shows it: what follows an `=` may be a value (`"TOKEN=abc": true`), never shown. */
export function shownVariableName(variable: string): string {
  const cut = variable.indexOf('=');
  return JSON.stringify(cut < 0 ? variable : `${variable.slice(0, cut)}=…`);
}

/** A variable name a shell can set and a process can be given: no `=`, no NUL, not blank. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * baton.workers.environment: a name mapped to `true` (passed through from VS Code's environment) or to text (set to it);
 * `false` means nothing. A name no process can take (`A=B`, a NUL), a value with a NUL (the runtime would not start at
 * all) or of another type is left out and named. Names only: a value may be a secret, so no problem ever shows one.
 */
export function readEnvironmentSetting(name: string, raw: unknown): SettingReading<Record<string, string | true>> {
  if (raw === undefined) return { value: {} };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { value: {}, problem: wrongType(name, raw, 'an object', {}, true) };
  const value: Record<string, string | true> = {};
  const badNames: string[] = [];
  const badValues: string[] = [];
  for (const [variable, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!VARIABLE_NAME.test(variable)) badNames.push(shownVariableName(variable));
    else if (v === true || (typeof v === 'string' && !v.includes('\0'))) value[variable] = v;
    else if (v !== false) badValues.push(variable);
  }
  const problems = [
    ...(badNames.length
      ? [`${badNames.join(', ')} cannot be the name of an environment variable (letters, digits and _ only, not starting with a digit)`]
      : []),
    ...(badValues.length ? [`the value of ${badValues.join(', ')} must be true, false or text without a NUL character`] : []),
  ];
  if (!problems.length) return { value };
  return { value, problem: `${name}: ${problems.join('; ')}. Baton leaves ${badNames.length + badValues.length === 1 ? 'it' : 'them'} out until fixed.` };
}
