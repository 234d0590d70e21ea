// The wiki through the real runtime and a scripted model, on real files: write, ranked search, an edit made on
// disk (as in the editor) found by the next search, delete; page names never leave the folder; a bounded summary
// in the next session's system message.
import * as assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { afterEachCore } from '../support/afterEachCore';

describe('wiki (real runtime, scripted model, real files)', function () {
  this.timeout(90_000);
  let core: CoreFixture;

  beforeEach(async () => {
    core = await startCore();
  });
  afterEachCore(() => core);

  async function turn(text: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<string> {
    core.server.on({ lastUserIncludes: text, afterToolResult: false, name: text }, { toolCalls: calls });
    core.server.on({ afterToolResult: true, name: `after ${text}` }, { text: 'ok' });
    await core.orchestrator.enqueue(text, { channel: 'panel' }).done;
    const req = core.server.chatRequests().at(-1)!;
    return req.messages
      .filter((m) => m.role === 'tool')
      .slice(-calls.length)
      .map((m) => String(m.content))
      .join('\n---\n');
  }

  it('write, ranked search, an edit on disk found by the next search, delete', async () => {
    const folder = join(core.storageDir, 'wiki');
    assert.match(
      await turn('note the release process', [
        { name: 'wiki_write', arguments: { page: 'release-process', content: '# Release process\n\nTag the release, then build the release artifacts.' } },
      ]),
      /Created wiki page 'release-process' \("Release process"/,
    );
    await turn('note the deploy steps', [
      { name: 'wiki_write', arguments: { page: 'ops/deploy', content: '# Deploy\n\nDeploy after the release is tagged.' } },
    ]);
    assert.equal(await readFile(join(folder, 'ops', 'deploy.md'), 'utf8'), '# Deploy\n\nDeploy after the release is tagged.\n');

    const ranked = await turn('how do we release?', [{ name: 'wiki_search', arguments: { query: 'release' } }]);
    assert.match(ranked, /^2 page\(s\), best first:\n1\. release-process — "Release process" \(score [\d.]+\): .*\*\*release\*\*.*\n2\. ops\/deploy/);

    // The user edits a page in the editor: the file changes on disk, nothing tells Baton; the next search finds it.
    const file = join(folder, 'ops', 'deploy.md');
    const before = (await stat(file)).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(file, '# Deploy\n\nDeploy after the release is tagged. Roll back with the zeppelin switch.\n');
    assert.ok((await stat(file)).mtimeMs > before);
    assert.match(await turn('how do we roll back?', [{ name: 'wiki_search', arguments: { query: 'zeppelin' } }]), /^1 page\(s\), best first:\n1\. ops\/deploy/);
    // No page has every word: the pages with any of them (prefixes too), ranked; it found none before.
    assert.match(
      await turn('zeppelin on kubernetes?', [{ name: 'wiki_search', arguments: { query: 'zeppel kubernetes' } }]),
      /^1 page\(s\), best first:\n1\. ops\/deploy/,
    );

    // A file added by hand is a page too; wiki_read reads it.
    await writeFile(join(folder, 'handmade.md'), '# Handmade\n\nWritten outside Baton.\n');
    assert.match(await turn('list the wiki', [{ name: 'wiki_list', arguments: {} }]), /3 page\(s\)[\s\S]*- handmade — "Handmade"/);
    assert.match(await turn('read handmade', [{ name: 'wiki_read', arguments: { page: 'handmade' } }]), /Written outside Baton/);
    // A page larger than a read (a pasted log, say) comes in parts, each saying where the next starts: a tool's
    // result reaches the model only up to 20 KB (the runtime passes a longer one as a path to a file).
    const long = `# Build log\n\n${'line of the build log, ünïcödé\n'.repeat(1400)}THE END\n`;
    await writeFile(join(folder, 'build-log.md'), long);
    const reads: string[] = [];
    for (let offset = 0, i = 0; i < 5; i++) {
      const part = await turn(`read the build log from ${offset}`, [{ name: 'wiki_read', arguments: { page: 'build-log', offset } }]);
      assert.ok(Buffer.byteLength(part) <= 20_000, `${Buffer.byteLength(part)} bytes`);
      assert.doesNotMatch(part, /Output too large/);
      const next = /\n\n\[(\d+) more characters: read on with offset (\d+)\]$/.exec(part);
      reads.push(
        part.replace(/^# Wiki page 'build-log'(, from character \d+ of \d+)?\n\n/, '').replace(/\n\n\[\d+ more characters: read on with offset \d+\]$/, ''),
      );
      if (!next) break;
      assert.equal(Number(next[1]) + Number(next[2]), long.length);
      offset = Number(next[2]);
    }
    assert.ok(reads.length >= 3, `${reads.length} parts`);
    assert.equal(reads.join(''), long, 'read in parts, the page is whole');
    assert.match(
      await turn('read past the end', [{ name: 'wiki_read', arguments: { page: 'build-log', offset: 999_999 } }]),
      new RegExp(`Page 'build-log' has ${long.length} characters: offset 999999 is past its end`),
    );

    assert.match(await turn('drop the deploy page', [{ name: 'wiki_delete', arguments: { page: 'ops/deploy' } }]), /Deleted wiki page 'ops\/deploy'/);
    await assert.rejects(stat(file));
    assert.match(await turn('search zeppelin again', [{ name: 'wiki_search', arguments: { query: 'zeppelin' } }]), /No wiki page matches "zeppelin"/);
    core.assertScriptDone();
  });

  it('page names never leave the wiki folder', async () => {
    const folder = join(core.storageDir, 'wiki');
    const outside = join(core.root, 'outside');
    await mkdir(folder, { recursive: true });
    await mkdir(outside, { recursive: true });
    await symlink(outside, join(folder, 'link'));
    // A page that is a link to a file not there yet (a cloned repository can hold one): a write followed it out.
    await symlink(join(outside, 'planted.txt'), join(folder, 'dangling.md'));
    const results = await turn('try escapes', [
      { name: 'wiki_write', arguments: { page: '../evil', content: 'x' } },
      { name: 'wiki_write', arguments: { page: '/etc/passwd', content: 'x' } },
      { name: 'wiki_write', arguments: { page: 'link/evil', content: 'x' } },
      { name: 'wiki_read', arguments: { page: 'nope' } },
      { name: 'wiki_write', arguments: { page: 'dangling', content: 'planted by the model' } },
      // Listed as 'notes.md' and then read as 'notes' by that name: refused up front.
      { name: 'wiki_write', arguments: { page: 'notes.md.md', content: 'x' } },
    ]);
    assert.match(results, /Invalid page name '\.\.\/evil'/);
    assert.match(results, /outside the wiki folder/);
    assert.match(results, /No wiki page 'nope'/);
    assert.match(results, /Page 'dangling' is a link to a file that does not exist/);
    assert.match(results, /Invalid page name 'notes\.md\.md'.*no '\.md'/);
    await assert.rejects(stat(join(outside, 'planted.txt')), 'nothing written through the link');
    await assert.rejects(stat(join(folder, 'notes.md.md')));
    await assert.rejects(stat(join(outside, 'evil.md')));
    await assert.rejects(stat(join(core.storageDir, 'evil.md')));
    core.assertScriptDone();
  });

  it('a page file made by hand as README.MD is read, rewritten and deleted by the name the list shows; names in any script, marks included, are pages', async () => {
    const folder = join(core.storageDir, 'wiki');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'README.MD'), '# Readme\n\nHand made, upper-case extension.\n');
    assert.match(await turn('list it', [{ name: 'wiki_list', arguments: {} }]), /- README — "Readme"/);
    assert.match(await turn('read it', [{ name: 'wiki_read', arguments: { page: 'README' } }]), /Hand made/);
    await turn('rewrite it', [{ name: 'wiki_write', arguments: { page: 'README', content: '# Readme\n\nRewritten.' } }]);
    assert.deepEqual(await readdir(folder), ['README.MD'], 'the same file, not a second one');
    assert.match(await turn('delete it', [{ name: 'wiki_delete', arguments: { page: 'README' } }]), /Deleted/);
    assert.deepEqual(await readdir(folder), []);

    // Hindi (its vowel signs are combining marks) and an accent written as its own character.
    for (const page of ['\u0939\u093f\u0928\u094d\u0926\u0940', 'cafe\u0301']) {
      assert.match(await turn(`write ${page}`, [{ name: 'wiki_write', arguments: { page, content: `# ${page}\n\nbody` } }]), /^Created wiki page/);
      assert.match(await turn(`read ${page}`, [{ name: 'wiki_read', arguments: { page } }]), /body/);
    }
  });

  it('the index holds the pages of the wiki folders that exist: one gone (deleted, the setting moved on) takes its pages out of the index', async () => {
    const a = join(core.workspace, 'docs-a');
    const b = join(core.workspace, 'docs-b');
    let folder = a;
    await core.restart({ wikiFolder: () => folder });
    await turn('write in a', [{ name: 'wiki_write', arguments: { page: 'alpha', content: `# Alpha\n\n${'indexed text '.repeat(2000)}` } }]);
    assert.equal(core.store.wikiIndex.indexed(a).length, 1);
    await rm(a, { recursive: true });
    folder = b;
    await turn('write in b', [{ name: 'wiki_write', arguments: { page: 'beta', content: '# Beta\n\nb' } }]);
    await core.wiki.sync();
    assert.deepEqual(core.store.wikiIndex.indexed(a), [], 'its page is out of the index');
    assert.deepEqual(core.store.wikiIndex.folders(), [b]);
    assert.deepEqual(core.store.wikiIndex.search(a, 'indexed', 5), []);
  });

  it('a file over the size of a page, or a FIFO, in the wiki folder: refused with a clear error, nothing read whole or waited on', async () => {
    const folder = join(core.storageDir, 'wiki');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'huge.md'), `# Huge\n\n${'x'.repeat(2 * 1024 * 1024)}\n`);
    execFileSync('mkfifo', [join(folder, 'pipe.md')]);
    const results = await turn('read the odd pages', [
      { name: 'wiki_read', arguments: { page: 'huge' } },
      { name: 'wiki_read', arguments: { page: 'pipe' } },
      { name: 'wiki_write', arguments: { page: 'pipe', content: 'more', append: true } },
    ]);
    // Too large to read, the page can still be replaced whole.
    assert.match(
      await turn('replace the huge page', [{ name: 'wiki_write', arguments: { page: 'huge', content: '# Huge\n\nNow short.' } }]),
      /Updated wiki page 'huge' \("Huge", \d+ characters\)/,
    );
    assert.match(results, /Wiki page 'huge' is 2049 KB, over the 1024 KB a page may have: open it in the editor, or split it\./);
    assert.match(results, /No wiki page 'pipe'/);
    assert.match(results, /'pipe' in the wiki folder is not a file Baton can write/);
    core.assertScriptDone();
  });

  it('appends to one page at once (the model\u2019s parallel tool calls) all land, in the order they came; a new page never replaces one', async () => {
    await core.wiki.write('decisions', '# Decisions');
    const notes = ['- Use sql.js for the store.', '- Workers run in worktrees.', '- The panel has a strict CSP.'];
    const written = await Promise.all(notes.map((n) => core.wiki.write('decisions', n, { append: true })));
    assert.deepEqual(
      written.map((p) => p.created),
      [false, false, false],
    );
    assert.equal(await readFile(join(core.storageDir, 'wiki', 'decisions.md'), 'utf8'), `# Decisions\n\n${notes.join('\n\n')}\n`);
    // A new page written twice at once: one is the page's creation, the other replaces it.
    const created = await Promise.all([core.wiki.write('fresh', 'one'), core.wiki.write('fresh', 'two')]);
    assert.deepEqual(
      created.map((p) => p.created),
      [true, false],
    );
    assert.equal(await readFile(join(core.storageDir, 'wiki', 'fresh.md'), 'utf8'), 'two\n');
    // Baton: New Wiki Page with a name already taken: the page is opened as it is, never replaced by a bare heading.
    const again = await core.wiki.write('decisions', '# decisions', { ifMissing: true });
    assert.equal(again.created, false);
    assert.equal(again.title, 'Decisions');
    assert.equal(await readFile(join(core.storageDir, 'wiki', 'decisions.md'), 'utf8'), `# Decisions\n\n${notes.join('\n\n')}\n`);
    assert.equal((await core.wiki.write('brand-new', '# brand-new', { ifMissing: true })).created, true);
  });

  it('a bounded summary of the wiki reaches the next session', async () => {
    for (let i = 0; i < 80; i++)
      await core.wiki.write(`topic-${String(i).padStart(2, '0')}`, `# Topic number ${i} with a fairly long title to fill the summary\n\nbody ${i}`);
    core.store.deleteState('orchestrator_session_id');
    await core.restart();
    core.server.on({ lastUserIncludes: 'hello', name: 'hello' }, { text: 'Hi.' });
    await core.orchestrator.enqueue('hello', { channel: 'panel' }).done;
    const system = core.server.chatRequests().at(-1)!.systemText;
    const section = /## Wiki\n[\s\S]*?(?=\n\n|$)/.exec(system)?.[0] ?? '';
    assert.match(section, /- topic-00: Topic number 0 with a fairly long title/);
    assert.match(section, /\(\d+ more pages; use wiki_list or wiki_search\.\)/);
    assert.ok(section.length <= 1500, `the section is bounded (${section.length} chars)`);
    core.assertScriptDone();
  });
});
