// What a skill may hold before Baton installs it (skillFiles.ts), on real files: its folder is read outside any
// sandbox, by Baton and by the runtime, so nothing in it may lead elsewhere or make a read wait for ever.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SkillLibrary } from '../../src/core/skills/skillLibrary';
import { MAX_SKILL_ENTRIES, MAX_SKILL_MD_BYTES } from '../../src/core/skills/skillFiles';

const SKILL_MD = '---\nname: tidy\ndescription: Keeps things tidy\n---\n\nBody.\n';

describe('skill files: what an install takes (real files)', function () {
  this.timeout(20_000);
  let root: string;
  let source: string;
  let library: SkillLibrary;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'baton-skill-files-'));
    source = join(root, 'source');
    await mkdir(source);
    library = new SkillLibrary(join(root, 'installed'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const refused = async (pattern: RegExp): Promise<void> => {
    await assert.rejects(library.install(source), (err: Error) => err.name === 'SkillError' && pattern.test(err.message));
    assert.deepEqual(await readdir(join(root, 'installed')).catch(() => []), [], 'nothing installed');
  };

  it('a FIFO for SKILL.md, or anywhere in a folder to copy, is refused at once (a read would wait for a writer for ever)', async () => {
    execFileSync('mkfifo', [join(source, 'SKILL.md')]);
    // Checked where it is, before anything is copied (skillInstallInPlace.unit.test.ts).
    await refused(/^Not installed: SKILL\.md is a link or not a regular file\. A skill holds its own files only/);
    await rm(join(source, 'SKILL.md'));
    await writeFile(join(source, 'SKILL.md'), SKILL_MD);
    execFileSync('mkfifo', [join(source, 'pipe')]);
    await refused(/^Not installed: pipe is neither a file nor a folder\./);
  });

  it('what SKILL.md Baton reads, it reads as a file of its own: a link or a FIFO makes no skill, and nothing waits', async () => {
    await mkdir(join(root, 'installed', 'linked'), { recursive: true });
    await writeFile(join(root, 'secret.txt'), 'SECRET first line\n');
    await symlink(join(root, 'secret.txt'), join(root, 'installed', 'linked', 'SKILL.md'));
    await mkdir(join(root, 'installed', 'piped'));
    execFileSync('mkfifo', [join(root, 'installed', 'piped', 'SKILL.md')]);
    await mkdir(join(root, 'installed', 'tidy'));
    await writeFile(join(root, 'installed', 'tidy', 'SKILL.md'), SKILL_MD);
    assert.deepEqual(
      (await library.list()).map((s) => [s.name, s.description]),
      [['tidy', 'Keeps things tidy']],
    );
  });

  it('a link out of the skill, or an absolute one, is refused; a relative link inside it is installed as a link', async () => {
    await writeFile(join(source, 'SKILL.md'), SKILL_MD);
    await writeFile(join(root, 'outside.txt'), 'not the skill’s\n');
    await mkdir(join(source, 'docs'));
    await writeFile(join(source, 'docs', 'usage.md'), 'usage\n');
    await symlink('../../outside.txt', join(source, 'docs', 'out.md'));
    await refused(/^Not installed: docs\/out\.md is a link to \.\.\/\.\.\/outside\.txt, outside the skill\./);
    await rm(join(source, 'docs', 'out.md'));
    await symlink(join(source, 'docs', 'usage.md'), join(source, 'abs.md'));
    await refused(/^Not installed: abs\.md is a link to .*usage\.md, outside the skill\./);
    await rm(join(source, 'abs.md'));
    await symlink('docs', join(source, 'manual'));
    await symlink('missing.md', join(source, 'dangling.md'));
    await refused(/^Not installed: dangling\.md is a link to missing\.md, outside the skill\./);
    await rm(join(source, 'dangling.md'));

    const [skill] = await library.install(source);
    assert.equal(skill?.description, 'Keeps things tidy');
    assert.equal(await readFile(join(skill!.dir, 'manual', 'usage.md'), 'utf8'), 'usage\n', 'the link inside leads to its folder');
  });

  it(`a SKILL.md over ${MAX_SKILL_MD_BYTES} bytes is refused by its size`, async () => {
    await writeFile(join(source, 'SKILL.md'), SKILL_MD + 'x'.repeat(MAX_SKILL_MD_BYTES));
    await refused(
      new RegExp(`^Not installed: SKILL\\.md is ${MAX_SKILL_MD_BYTES + SKILL_MD.length} bytes, more than the ${MAX_SKILL_MD_BYTES} a SKILL\\.md may hold\\.$`),
    );
  });

  it(`more than ${MAX_SKILL_ENTRIES} files and folders is no skill`, async () => {
    await writeFile(join(source, 'SKILL.md'), SKILL_MD);
    await mkdir(join(source, 'many'));
    await Promise.all(Array.from({ length: MAX_SKILL_ENTRIES }, (_, i) => writeFile(join(source, 'many', `f${i}`), '')));
    await refused(/^Not installed: it holds more than 5000 files and folders\./);
  });
});
