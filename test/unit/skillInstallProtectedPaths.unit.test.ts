// A skill's folder is read by every session outside the sandbox, so skill_install must not take one from where no
// worker may go: baton.workers.protectedPaths, the built-in credential stores (~/.ssh …) and Baton's own storage. Before
// this check, a folder the user had protected was copied into Baton's skills folder (its token file too) once the user
// said yes to a prompt that did not say where it came from. Production wiring, in-memory runtime, real files.
import * as assert from 'node:assert/strict';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SkillError } from '../../src/core/skills/skillLibrary';
import { reply, sequence, tool } from '../support/inMemoryAgentSessions';
import { unitOrchestrator } from '../support/unitOrchestrator';

const skillMd = (name: string) => `---\nname: ${name}\ndescription: ${name} things\n---\n\nBody.\n`;

async function skillAt(dir: string, name: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), skillMd(name));
  await writeFile(join(dir, 'token.txt'), 'AWS_SECRET=hunter2\n');
}

describe('skill_install refuses a source in or around a protected path (production wiring)', () => {
  const { start, send } = unitOrchestrator();
  const asked: string[] = [];

  async function setUp() {
    asked.length = 0;
    const fixture = await start({
      broker: {
        ask: async (prompt) => {
          asked.push(prompt.kind);
          return 'once';
        },
      },
    });
    const secret = join(fixture.workDir, 'secret');
    await skillAt(secret, 'creds');
    fixture.workerSettings.protectedPaths = [secret];
    return { ...fixture, secret, installed: () => readdir(fixture.core.skills.dir) };
  }

  /** skill_install called by the model in a turn, as the runtime would: the text and success the model gets. */
  async function install(f: Awaited<ReturnType<typeof setUp>>, args: Record<string, unknown>) {
    f.sessions.script('orchestrator', sequence(tool('skill_install', args), reply('done')));
    await send(`install ${JSON.stringify(args)}`).done;
    return f.sessions.toolResults.at(-1)!;
  }

  const refusedUnasked = async (f: Awaited<ReturnType<typeof setUp>>, args: Record<string, unknown>, label: string) => {
    const result = await install(f, args);
    assert.equal(result.success, false, result.result);
    assert.ok(result.result.includes(label), `names the protected path ${label}: ${result.result}`);
    assert.deepEqual(asked, [], 'the user is not asked about what cannot be installed');
    assert.deepEqual(await f.installed(), [], 'nothing is copied into the skills folder');
  };

  it('a folder in baton.workers.protectedPaths, and a link to it, are refused before anyone is asked', async () => {
    const f = await setUp();
    await refusedUnasked(f, { source: f.secret }, f.secret);
    const link = join(f.workDir, 'innocent');
    await symlink(f.secret, link);
    await refusedUnasked(f, { source: link }, f.secret);
    // The Skills view installs without the tool: the library refuses it as well, as a type.
    await assert.rejects(f.core.skills.install(link), (err: unknown) => err instanceof SkillError && err.reason === 'protected');
    assert.deepEqual(await f.installed(), []);
  });

  it('a folder that holds a protected path (the home folder, a project around it) is refused', async () => {
    const f = await setUp();
    await writeFile(join(f.workDir, 'SKILL.md'), skillMd('everything'));
    await refusedUnasked(f, { source: f.workDir }, f.secret);
    // ~ holds ~/.ssh and the other credential stores (whether they exist yet or not).
    await writeFile(join(f.workDir, '..', 'home', 'SKILL.md'), skillMd('home'));
    await refusedUnasked(f, { source: '~' }, '~/');
  });

  it('Baton’s own storage is refused, and so is a skills folder that links into a protected one', async () => {
    const f = await setUp();
    const planted = join(f.storageDir, 'planted');
    await skillAt(planted, 'planted');
    await refusedUnasked(f, { source: planted }, f.storageDir);
    const pack = join(f.workDir, 'pack');
    await mkdir(pack);
    await symlink(join(f.workDir), join(pack, 'skills'));
    await refusedUnasked(f, { source: pack }, f.secret);
  });

  it('an ordinary folder is still installed, after the user says yes', async () => {
    const f = await setUp();
    const tidy = join(f.workDir, 'tidy');
    await skillAt(tidy, 'tidy');
    const result = await install(f, { source: tidy });
    assert.equal(result.success, true, result.result);
    assert.deepEqual(asked, ['install a skill']);
    assert.deepEqual(await f.installed(), ['tidy']);
  });
});
