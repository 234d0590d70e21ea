import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUserCopilotConfig } from '../../src/core/copilot/userCopilotConfig';
import { MemoryLogger } from '../../src/core/util/logger';

describe("the user's Copilot config", () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'baton-cfg-'));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('is empty when nothing is configured', async () => {
    assert.deepEqual(await readUserCopilotConfig(home, new MemoryLogger()), { mcpServers: {}, skillDirectories: [] });
  });

  it('reads MCP servers and the skills folder, skipping a bad server with a warning', async () => {
    await writeFile(
      join(home, 'mcp-config.json'),
      JSON.stringify({
        mcpServers: { files: { command: 'npx', args: ['-y', 'server-files'] }, web: { type: 'http', url: 'http://127.0.0.1:9/mcp' }, broken: { type: 'http' } },
      }),
    );
    await mkdir(join(home, 'skills'));
    const logger = new MemoryLogger();
    const cfg = await readUserCopilotConfig(home, logger);
    assert.deepEqual(Object.keys(cfg.mcpServers).sort(), ['files', 'web']);
    assert.deepEqual(cfg.mcpServers.files, { tools: ['*'], command: 'npx', args: ['-y', 'server-files'] });
    assert.deepEqual(cfg.skillDirectories, [join(home, 'skills')]);
    assert.ok(logger.lines.some((l) => l.includes("Ignoring MCP server 'broken'")));
  });

  it('ignores a malformed file and says so', async () => {
    await writeFile(join(home, 'mcp-config.json'), '{ not json');
    const logger = new MemoryLogger();
    const cfg = await readUserCopilotConfig(home, logger);
    assert.deepEqual(cfg.mcpServers, {});
    assert.ok(logger.lines.some((l) => l.startsWith('warn Ignoring')));
  });
});
