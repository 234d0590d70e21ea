// The wiki's full-text index holds at most a stated number of bytes of pages per folder (WIKI_INDEX_BYTES; the store
// lives in memory and is written whole): the newest pages are the ones kept, the others are still read by name, and
// wiki_list / wiki_search say how many were left out. Real sql.js file, real page files, the tools the model calls.
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import type { Logger } from '../../src/core/util/logger';
import { Wiki } from '../../src/core/wiki/wiki';
import { createWikiTools } from '../../src/core/wiki/wikiTools';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('the wiki index bound (real sql.js, real files)', () => {
  let dir: string;
  let folder: string;
  let store: SqlJsStore;
  let wiki: Wiki;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-wikibound-'));
    folder = join(dir, 'wiki');
    await mkdir(folder);
    store = await SqlJsStore.open({ dir: join(dir, 'store'), flushDelayMs: 5, pollIntervalMs: 0 });
    // 10 KB: three of the 3 KB pages below fit, a fourth does not.
    wiki = new Wiki({ store, logger: quiet, folder: () => folder, maxIndexBytes: 10 * 1024 });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A 3 KB page naming `word`, last modified `minutesAgo`. */
  const page = async (name: string, word: string, minutesAgo: number) => {
    const file = join(folder, `${name}.md`);
    await writeFile(file, `# ${name}\n\n${word} ${'filler text '.repeat(250)}\n`);
    const at = new Date(Date.now() - minutesAgo * 60_000);
    await utimes(file, at, at);
  };
  const call = async (tool: string, args: Record<string, unknown>) => {
    const t = createWikiTools(wiki).find((x) => x.name === tool)!;
    const r = (await t.handler!(args, { toolCallId: 'c1' } as never)) as string | { textResultForLlm: string };
    return typeof r === 'string' ? r : r.textResultForLlm;
  };

  it('keeps the newest pages within the bound; the older ones are left out of list and search, said, and still read', async () => {
    await page('oldest', 'aardvark', 50);
    await page('older', 'badger', 40);
    await page('newer', 'cheetah', 30);
    await page('newest', 'dingo', 20);
    await page('fresh', 'emu', 10);
    const listed = await call('wiki_list', {});
    assert.match(listed, /^3 page\(s\) in /);
    assert.deepEqual((await wiki.list()).map((p) => p.name).sort(), ['fresh', 'newer', 'newest']);
    assert.match(
      listed,
      /\(2 older pages not in the index: the wiki folder holds more than the 10\.0 KB of pages it keeps\. Read one by name with wiki_read\.\)$/,
    );
    assert.equal(
      await call('wiki_search', { query: 'aardvark' }),
      `No wiki page matches "aardvark".\n(2 older pages not in the index: the wiki folder holds more than the 10.0 KB of pages it keeps. Read one by name with wiki_read.)`,
    );
    assert.match(await call('wiki_search', { query: 'emu' }), /^1 page\(s\), best first:\n1\. fresh/);
    assert.match((await wiki.read('oldest')).content, /aardvark/);

    // An old page edited now is the newest: it enters, and the oldest indexed one leaves.
    await page('oldest', 'aardvark', 0);
    assert.deepEqual((await wiki.list()).map((p) => p.name).sort(), ['fresh', 'newest', 'oldest']);
    assert.match(await call('wiki_search', { query: 'aardvark' }), /^1 page\(s\), best first:\n1\. oldest/);
    assert.match(await call('wiki_search', { query: 'cheetah' }), /^No wiki page matches "cheetah"\.\n\(2 older pages/);

    // Room again once pages go: nothing left out, nothing said.
    await rm(join(folder, 'fresh.md'));
    await rm(join(folder, 'newest.md'));
    assert.deepEqual((await wiki.list()).map((p) => p.name).sort(), ['newer', 'older', 'oldest']);
    assert.doesNotMatch(await call('wiki_list', {}), /not in the index/);
  });
});
