// The wiki's full-text index (FTS4; the sql.js build has no FTS5). The markdown files are the source of truth:
// the Wiki keeps this index in step with them (see src/core/wiki/wiki.ts). Ranking is BM25 computed from FTS4's
// matchinfo, with the title weighted above the body.
import { z } from 'zod';
import type { WikiHit, WikiIndexRow, WikiIndexStore } from './areaTypes';
import { bm25 } from './bm25';
import { ftsAnyQuery, ftsQuery, ftsWords } from './memoryKey';
import type { TableAccess } from './sqlJsMemories';

const pageSchema = z.object({ name: z.string(), title: z.string(), mtime_ms: z.number(), size: z.number() }) satisfies z.ZodType<WikiIndexRow>;
const hitSchema = z.object({ name: z.string(), title: z.string(), mi: z.instanceof(Uint8Array), snippet: z.string() });

/** Title, body. */
const COLUMN_WEIGHTS = [3, 1];

export class SqlJsWikiIndex implements WikiIndexStore {
  constructor(private readonly access: TableAccess) {}

  indexed(folder: string): WikiIndexRow[] {
    return this.access.read(
      () => this.access.tables.rows('wiki_pages', 'SELECT name, title, mtime_ms, size FROM wiki_pages WHERE folder = ? ORDER BY name', [folder], pageSchema),
      [],
    );
  }

  upsert(folder: string, page: WikiIndexRow & { body: string }): void {
    this.access.commit({ op: 'upsertWikiPage', folder, ...page });
  }

  remove(folder: string, name: string): void {
    this.access.commit({ op: 'removeWikiPage', folder, name });
  }

  folders(): string[] {
    return this.access.read(() => this.access.tables.column('SELECT DISTINCT folder FROM wiki_pages', []).map(String), []);
  }

  removeFolder(folder: string): void {
    this.access.commit({ op: 'removeWikiFolder', folder });
  }

  search(folder: string, query: string, limit: number): WikiHit[] {
    const all = ftsQuery(query);
    if (!all) return [];
    // Every word first; when no page has them all, any of them (still ranked, so the best partial match leads).
    const hits = this.match(folder, all);
    return (hits.length ? hits : this.match(folder, ftsAnyQuery(ftsWords(all))))
      .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
      .slice(0, limit);
  }

  private match(folder: string, expression: string): WikiHit[] {
    const rows = this.access.read(
      () =>
        this.access.tables.rows(
          'wiki_fts',
          `SELECT p.name AS name, p.title AS title, matchinfo(wiki_fts, 'pcnx') AS mi, snippet(wiki_fts, '**', '**', '…', -1, 16) AS snippet
           FROM wiki_fts JOIN wiki_pages p ON p.id = wiki_fts.docid WHERE wiki_fts MATCH ? AND p.folder = ?`,
          [expression, folder],
          hitSchema,
        ),
      [],
    );
    return rows.map((r) => ({ name: r.name, title: r.title, snippet: r.snippet.replace(/\s+/g, ' ').trim(), score: bm25(r.mi, COLUMN_WEIGHTS) }));
  }
}
