// A local skill source is checked where it is (its SKILL.md, entries, links, bytes) and only the skill's own folder is
// copied. Before, the whole folder was copied to a temp folder first: a pack's unrelated data (300 MB measured, a
// FIFO, the whole home folder for "~") was copied or failed the install before SKILL.md was even looked for, and a
// skill had no byte limit at all. Production wiring (the core's library, the tool as the runtime calls it), real files.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_SKILL_BYTES } from '../../src/core/skills/skillFiles';
import { SkillError } from '../../src/core/skills/skillLibrary';
import { reply, sequence, tool } from '../support/inMemoryAgentSessions';
import { unitOrchestrator } from '../support/unitOrchestrator';

const SKILL_MD = '---\nname: tidy\ndescription: Keeps things tidy\n---\n\nBody.\n';

describe('skill_install checks a local source in place and copies only the skill', () => {
  const { start, send } = unitOrchestrator();
  const yes = { broker: { ask: async () => 'once' as const } };

  it('a pack is installed from its skill folder alone: a FIFO or a large file beside it is never read nor copied', async () => {
    const f = await start(yes);
    const pack = join(f.workDir, 'pack');
    await mkdir(join(pack, 'skills', 'tidy'), { recursive: true });
    await writeFile(join(pack, 'skills', 'tidy', 'SKILL.md'), SKILL_MD);
    await mkdir(join(pack, 'data'));
    execFileSync('mkfifo', [join(pack, 'data', 'pipe')]);
    await writeFile(join(pack, 'data', 'big.bin'), '');
    await truncate(join(pack, 'data', 'big.bin'), 300 * 1024 * 1024);
    f.sessions.script('orchestrator', sequence(tool('skill_install', { source: pack }), reply('done')));
    await send('install the pack').done;
    const result = f.sessions.toolResults.at(-1)!;
    assert.equal(result.success, true, result.result);
    assert.deepEqual(await readdir(f.core.skills.dir), ['tidy']);
    assert.deepEqual(await readdir(join(f.core.skills.dir, 'tidy')), ['SKILL.md']);
  });

  it(`a skill over ${MAX_SKILL_BYTES} bytes is refused by its size, in place: no temp copy is made`, async () => {
    const f = await start(yes);
    const source = join(f.workDir, 'heavy');
    await mkdir(join(source, 'assets'), { recursive: true });
    await writeFile(join(source, 'SKILL.md'), SKILL_MD);
    await writeFile(join(source, 'assets', 'model.bin'), '');
    await truncate(join(source, 'assets', 'model.bin'), MAX_SKILL_BYTES);
    // TMPDIR, read by os.tmpdir() at each call, made a folder of this test's own: what an install stages there shows.
    const temp = await mkdtemp(join(tmpdir(), 'baton-skill-tmp-'));
    const made: string[] = [];
    const watcher = watch(temp, (_event, name) => void (name && made.push(name)));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    try {
      await assert.rejects(
        f.core.skills.install(source),
        (err: unknown) => err instanceof SkillError && err.reason === 'too-large' && err.message.includes(`${MAX_SKILL_BYTES / 1024 / 1024} MB`),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      watcher.close();
      await rm(temp, { recursive: true, force: true });
    }
    assert.deepEqual(made, [], 'nothing was staged in the temp folder');
    assert.deepEqual(await readdir(f.core.skills.dir), []);
    // Just under the bound it is a skill (SKILL.md counts too).
    await truncate(join(source, 'assets', 'model.bin'), MAX_SKILL_BYTES - SKILL_MD.length);
    assert.deepEqual(
      (await f.core.skills.install(source)).map((s) => s.name),
      ['tidy'],
    );
  });

  it('in place, a FIFO as SKILL.md or in the skill is refused at once', async () => {
    const f = await start(yes);
    const source = join(f.workDir, 'odd');
    await mkdir(source);
    execFileSync('mkfifo', [join(source, 'SKILL.md')]);
    const refused = async (reason: SkillError['reason']) => {
      await assert.rejects(f.core.skills.install(source), (err: unknown) => err instanceof SkillError && err.reason === reason);
      assert.deepEqual(await readdir(f.core.skills.dir), []);
    };
    await refused('not-own-file');
    await rm(join(source, 'SKILL.md'));
    await writeFile(join(source, 'SKILL.md'), SKILL_MD);
    execFileSync('mkfifo', [join(source, 'pipe')]);
    await refused('not-own-file');
  });
});
