// The wiki: markdown pages in a folder the user can open, edit and version (Baton's storage by default, or a
// workspace folder from baton.wiki.folder), with a full-text index in the store.
// Invariants: the files are the truth and the index follows them — before every list or search, files whose
// mtime or size changed are indexed again and vanished ones dropped (the VS Code layer also calls sync() on file
// events, for edits made in the editor); syncs never overlap; page names never leave the folder (wikiPaths.ts).
import type { Stats } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WikiHit, WikiIndexRow } from '../store/areaTypes';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { KeyedQueue } from '../util/keyedQueue';
import { pageFile, pageNameOf, WikiError } from './wikiPaths';

export { WikiError } from './wikiPaths';

const MAX_PAGES = 5000;
const WIKI_WRITES = 'wiki';
const MAX_PAGE_BYTES = 1024 * 1024;
/**
 * The bytes of pages one wiki folder may hold in the index (the store lives in memory, sql.js, and is written whole):
 * the newest pages first; older ones past it are left out of list and search (still read by name), and the tools say so.
 */
export const WIKI_INDEX_BYTES = 16 * 1024 * 1024;

export interface WikiOptions {
  store: BatonStore;
  /** The wiki folder now (the setting may change it). */
  folder: () => string;
  logger: Logger;
  /** WIKI_INDEX_BYTES unless a test needs a smaller one. */
  maxIndexBytes?: number;
}

export interface WriteOptions {
  /** Add to the end of the page instead of replacing it. */
  append?: boolean;
  /** Only make the page: one already there is returned as it is (created: false). */
  ifMissing?: boolean;
}

export interface WikiPage {
  name: string;
  title: string;
  content: string;
  file: string;
}

export class Wiki {
  private syncing: Promise<void> = Promise.resolve();
  /**
   * The wiki's writes, one after the other in the order they were asked: an append reads the page and writes it back
   * whole, and three appends at once (the model's parallel tool calls) kept only the last one's note. One queue for
   * every page: a page's file is known only once its name is resolved, and by then the order asked is lost; and
   * "Release Notes" and "release notes" are one file on macOS.
   */
  private readonly writes = new KeyedQueue();
  private left = 0;

  constructor(private readonly opts: WikiOptions) {}

  get folder(): string {
    return this.opts.folder();
  }

  /** Pages of the folder the last sync left out of the index: past its byte bound (WIKI_INDEX_BYTES), oldest first. */
  get unindexed(): number {
    return this.left;
  }

  /** The index's byte bound for one folder. */
  get indexBytes(): number {
    return this.opts.maxIndexBytes ?? WIKI_INDEX_BYTES;
  }

  async read(name: string): Promise<WikiPage> {
    const { name: page, file } = await pageFile(this.folder, name);
    const content = await pageText(page, file, await stat(file).catch(() => undefined));
    if (content === undefined) throw new WikiError(`No wiki page '${page}'. ${await this.suggest(page)}`);
    return { name: page, title: titleOf(page, content), content, file };
  }

  /** Writes (or appends to) a page and indexes it at once; `ifMissing`: a page already there is left as it is. */
  async write(name: string, content: string, opts: WriteOptions = {}): Promise<WikiPage & { created: boolean }> {
    return this.writes.run(WIKI_WRITES, async () => {
      const { name: page, file } = await pageFile(this.folder, name, { create: true });
      return this.writeNow(page, file, content, opts);
    });
  }

  private async writeNow(page: string, file: string, content: string, opts: WriteOptions): Promise<WikiPage & { created: boolean }> {
    const existing = await stat(file).catch(() => undefined);
    // Written in place would block on a FIFO (until something reads it) and replace what a link points at elsewhere.
    if (existing && !existing.isFile()) throw new WikiError(`'${page}' in the wiki folder is not a file Baton can write (${file}).`);
    if (existing && opts.ifMissing) {
      const there = (await pageText(page, file, existing)) ?? '';
      return { name: page, title: titleOf(page, there), content: there, file, created: false };
    }
    // Only an append needs what is there: a page too large to read can still be replaced.
    const before = opts.append ? await pageText(page, file, existing) : undefined;
    const text = opts.append && before ? `${before.replace(/\s*$/, '')}\n\n${content.trim()}\n` : `${content.replace(/\s*$/, '')}\n`;
    if (Buffer.byteLength(text) > MAX_PAGE_BYTES) throw new WikiError(`Page '${page}' would be over ${MAX_PAGE_BYTES / 1024} KB; split it into several pages.`);
    await writeFile(file, text, 'utf8');
    await this.indexFile(page, file);
    return { name: page, title: titleOf(page, text), content: text, file, created: existing === undefined };
  }

  async delete(name: string): Promise<string> {
    return this.writes.run(WIKI_WRITES, async () => {
      const { name: page, file } = await pageFile(this.folder, name);
      return this.deleteNow(page, file);
    });
  }

  private async deleteNow(page: string, file: string): Promise<string> {
    if (!(await stat(file).catch(() => undefined))?.isFile()) throw new WikiError(`No wiki page '${page}'. ${await this.suggest(page)}`);
    await rm(file);
    this.opts.store.wikiIndex.remove(this.folder, page);
    return page;
  }

  async list(): Promise<WikiIndexRow[]> {
    await this.sync();
    return this.opts.store.wikiIndex.indexed(this.folder);
  }

  async search(query: string, limit = 10): Promise<WikiHit[]> {
    await this.sync();
    return this.opts.store.wikiIndex.search(this.folder, query, limit);
  }

  /** The page a file is, when it is one (the VS Code layer maps editor files with it). */
  pageOf(file: string): string | undefined {
    return pageNameOf(this.folder, file);
  }

  /** Brings the index in step with the folder; concurrent calls share one pass after the running one. */
  sync(): Promise<void> {
    const next = this.syncing.then(() => this.syncOnce());
    this.syncing = next.catch((err: unknown) => this.opts.logger.warn(`Wiki: could not index ${this.folder}: ${String(err)}`));
    return next;
  }

  private async syncOnce(): Promise<void> {
    const folder = this.folder;
    const files: Array<{ page: string; file: string; info: Stats }> = [];
    for (const [page, file] of await listMarkdown(folder)) {
      const info = await stat(file).catch(() => undefined);
      if (info?.isFile() && info.size <= MAX_PAGE_BYTES) files.push({ page, file, info });
    }
    files.sort((a, b) => b.info.mtimeMs - a.info.mtimeMs);
    const indexed = new Map(this.opts.store.wikiIndex.indexed(folder).map((r) => [r.name, r]));
    let budget = this.indexBytes;
    let left = 0;
    for (const { page, file, info } of files) {
      // Past the bound a page stays out (or goes) even when smaller ones would fit: the newest are the ones kept.
      if (left || info.size > budget) {
        left++;
        continue;
      }
      budget -= info.size;
      const row = indexed.get(page);
      indexed.delete(page);
      if (row && row.mtime_ms === Math.floor(info.mtimeMs) && row.size === info.size) continue;
      await this.indexFile(page, file);
    }
    this.left = left;
    for (const gone of indexed.keys()) this.opts.store.wikiIndex.remove(folder, gone);
    // The index is shared by every window (each workspace may have its own wiki folder): the pages of a folder that no
    // longer exists (deleted, or the setting moved on and it went) go, or they stayed indexed for ever.
    for (const other of this.opts.store.wikiIndex.folders()) {
      if (
        other !== folder &&
        (await stat(other).then(
          () => false,
          (err: NodeJS.ErrnoException) => err.code === 'ENOENT',
        ))
      )
        this.opts.store.wikiIndex.removeFolder(other);
    }
  }

  private async indexFile(page: string, file: string): Promise<void> {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile() || info.size > MAX_PAGE_BYTES) return;
    const body = await readFile(file, 'utf8');
    this.opts.store.wikiIndex.upsert(this.folder, { name: page, title: titleOf(page, body), body, mtime_ms: Math.floor(info.mtimeMs), size: info.size });
  }

  private async suggest(page: string): Promise<string> {
    const names = (await this.list().catch(() => [])).map((r) => r.name);
    if (!names.length) return 'The wiki is empty.';
    const close = names.filter((n) => n.toLowerCase().includes(page.toLowerCase().split('/').pop() ?? '')).slice(0, 5);
    return close.length ? `Did you mean: ${close.join(', ')}?` : `Use wiki_list or wiki_search to find pages (${names.length} in all).`;
  }
}

/** The first level-one heading, or the page's last name segment. */
export function titleOf(page: string, content: string): string {
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(content)?.[1];
  return heading ? heading.slice(0, 200) : (page.split('/').pop() ?? page);
}

/** page name → file, for every markdown file under `root` (dot folders and node_modules skipped). */
async function listMarkdown(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 4 || out.size >= MAX_PAGES) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = join(dir, e.name);
      if (e.isDirectory()) await walk(full, depth + 1);
      else if (e.isFile() && /\.md$/i.test(e.name)) {
        const page = pageNameOf(root, full);
        if (page && out.size < MAX_PAGES) out.set(page, full);
      }
    }
  };
  await walk(root, 1);
  return out;
}

/**
 * A page's text, undefined when there is no such file. A page is a file of at most MAX_PAGE_BYTES (as written and
 * indexed): a huge file, or a FIFO, in a wiki folder that lives in a repository is read neither whole nor for ever.
 */
async function pageText(page: string, file: string, info: Stats | undefined): Promise<string | undefined> {
  if (!info?.isFile()) return undefined;
  if (info.size > MAX_PAGE_BYTES)
    throw new WikiError(
      `Wiki page '${page}' is ${Math.ceil(info.size / 1024)} KB, over the ${MAX_PAGE_BYTES / 1024} KB a page may have: open it in the editor, or split it.`,
    );
  return readFile(file, 'utf8').catch(() => undefined);
}
