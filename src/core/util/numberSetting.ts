// One reader for every numeric setting: the bounds are the ones package.json declares (so VS Code's settings UI and
// Baton hold a value to the same rule), and a value outside them is named, never silently turned into something else.

/** A numeric setting's schema as package.json's contributes.configuration declares it. */
export interface NumberSchema {
  type: 'number' | 'integer';
  default: number;
  minimum?: number;
  maximum?: number;
}

/** The value to use; `problem` says, for the user, why it is the default instead of what they set. */
export interface NumberReading {
  value: number;
  problem?: string;
}

/** `raw` as the user set it (undefined: not set). A bad value reads as the default, with the problem named. */
export function readNumberSetting(name: string, raw: unknown, schema: NumberSchema): NumberReading {
  if (raw === undefined || raw === null) return { value: schema.default };
  const whole = schema.type === 'integer';
  const ok = typeof raw === 'number' && Number.isFinite(raw) && (!whole || Number.isInteger(raw));
  const inRange = ok && (schema.minimum === undefined || raw >= schema.minimum) && (schema.maximum === undefined || raw <= schema.maximum);
  if (inRange) return { value: raw };
  return {
    value: schema.default,
    problem: `${name} is ${JSON.stringify(raw) ?? String(raw)}, but it must be ${whole ? 'a whole number' : 'a number'}${range(schema)}. Baton uses the default, ${schema.default}, until it is fixed.`,
  };
}

function range({ minimum, maximum }: NumberSchema): string {
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` of at least ${minimum}`;
  if (maximum !== undefined) return ` of at most ${maximum}`;
  return '';
}

interface PropertySchema {
  type?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, PropertySchema>;
}

/**
 * Every numeric setting in package.json's configuration properties, by full name: top-level ones, and the numeric
 * fields of an object setting (`baton.conversation.summarize.keep`), whose default is the object's.
 */
export function numberSchemas(properties: Record<string, PropertySchema>): Map<string, NumberSchema> {
  const out = new Map<string, NumberSchema>();
  const add = (name: string, p: PropertySchema, fallback: unknown) => {
    if ((p.type === 'number' || p.type === 'integer') && typeof fallback === 'number')
      out.set(name, { type: p.type, default: fallback, minimum: p.minimum, maximum: p.maximum });
  };
  for (const [name, p] of Object.entries(properties)) {
    add(name, p, p.default);
    const defaults = (p.default ?? {}) as Record<string, unknown>;
    for (const [field, f] of Object.entries(p.properties ?? {})) add(`${name}.${field}`, f, f.default ?? defaults[field]);
  }
  return out;
}
