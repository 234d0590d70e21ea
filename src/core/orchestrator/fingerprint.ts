// A session built with other tools or another model must never be resumed silently (IO's
// fingerprint, Warlock's drift check): the model would call tools that no longer exist.
import { createHash } from 'node:crypto';
import { z } from 'zod';

export interface FingerprintTool {
  name: string;
  parameters?: unknown;
}

function schemaText(parameters: unknown): string {
  if (parameters === undefined) return '';
  if (parameters instanceof z.ZodType) return JSON.stringify(z.toJSONSchema(parameters));
  return JSON.stringify(parameters);
}

/** sha256 of Baton's version, the model, and the sorted tool names with their schemas. */
export function sessionFingerprint(version: string, model: string, tools: readonly FingerprintTool[]): string {
  const hash = createHash('sha256');
  hash.update(`baton@${version}\nmodel=${model}\n`);
  for (const tool of [...tools].sort((a, b) => a.name.localeCompare(b.name))) {
    hash.update(`${tool.name}:${schemaText(tool.parameters)}\n`);
  }
  return hash.digest('hex');
}
