// The user's own Copilot CLI configuration that Baton's orchestrator inherits: MCP servers
// (<copilot home>/mcp-config.json) and skill directories (<copilot home>/skills). A missing file is
// normal; a malformed one is reported and ignored, never fatal.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { MCPServerConfig } from '@github/copilot-sdk';
import { z } from 'zod';
import type { Logger } from '../util/logger';

export interface UserCopilotConfig {
  mcpServers: Record<string, MCPServerConfig>;
  skillDirectories: string[];
}

const serverSchema = z.union([
  z
    .object({
      type: z.enum(['local', 'stdio']).optional(),
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      tools: z.array(z.string()).optional(),
    })
    .passthrough(),
  z
    .object({
      type: z.enum(['http', 'sse']),
      url: z.string().url(),
      headers: z.record(z.string(), z.string()).optional(),
      tools: z.array(z.string()).optional(),
    })
    .passthrough(),
]);
const fileSchema = z.object({ mcpServers: z.record(z.string(), z.unknown()).default({}) });

export async function readUserCopilotConfig(copilotHome: string, logger: Logger): Promise<UserCopilotConfig> {
  const result: UserCopilotConfig = { mcpServers: {}, skillDirectories: [] };
  const file = join(copilotHome, 'mcp-config.json');
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text !== undefined) {
    try {
      const parsed = fileSchema.parse(JSON.parse(text));
      for (const [name, raw] of Object.entries(parsed.mcpServers)) {
        const server = serverSchema.safeParse(raw);
        if (server.success) result.mcpServers[name] = { tools: ['*'], ...server.data } as MCPServerConfig;
        else logger.warn(`Ignoring MCP server '${name}' in ${file}: ${server.error.issues[0]?.message ?? 'invalid'}`);
      }
    } catch (err) {
      logger.warn(`Ignoring ${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const skills = join(copilotHome, 'skills');
  if ((await stat(skills).catch(() => undefined))?.isDirectory()) result.skillDirectories.push(skills);
  return result;
}
