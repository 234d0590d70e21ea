// Page names → files inside the wiki folder. A page name comes from the model (or a tree), so it is checked word by
// word and the file's real path (symlinks resolved) must stay inside the folder's real path: no name, however
// crafted, reads or writes outside the wiki.
import { lstat, mkdir, readdir, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ToolFailure } from '../copilot/batonTool';

/** A wiki problem worth telling the model as is (bad page name, no such page). */
export class WikiError extends ToolFailure {
  constructor(message: string) {
    super(message);
    this.name = 'WikiError';
  }
}

// Marks (\p{M}) too: the vowel signs of Devanagari and the other Indic scripts, an accent written as its own character.
const SEGMENT = /^[\p{L}\p{N}][\p{L}\p{M}\p{N} ._-]{0,79}$/u;
const MAX_DEPTH = 4;

/** The canonical page name ("guides/Release process"), or a WikiError saying what is wrong. */
export function normalizePageName(raw: string): string {
  const name = raw
    .trim()
    .replace(/\\/g, '/')
    .replace(/\.md$/i, '')
    .replace(/^\/+|\/+$/g, '');
  const segments = name.split('/').map((s) => s.trim());
  // A name still ending in .md after the one taken off ('notes.md.md') was written as page 'notes.md', listed so, and
  // then read as 'notes' by that listed name: a page the model could see but never read or delete.
  const bad =
    !name || segments.length > MAX_DEPTH || /\.md$/i.test(name) || segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..' || s.endsWith('.'));
  if (bad) {
    throw new WikiError(
      `Invalid page name '${raw}': use words, digits, spaces, '.', '_' or '-' (e.g. "release-process" or "guides/setup"), at most ${MAX_DEPTH} levels, no '..', no '.md' (it is added).`,
    );
  }
  return segments.join('/');
}

/** The page's name from a file path inside `root`, or undefined when the file is not a page. */
export function pageNameOf(root: string, file: string): string | undefined {
  const rel = relative(root, file);
  if (!rel || rel.startsWith('..') || !/\.md$/i.test(rel)) return undefined;
  try {
    return normalizePageName(rel.split(sep).join('/'));
  } catch {
    return undefined;
  }
}

/**
 * The file of page `name` under `root`, after checking that its real location stays inside the real root. With
 * `create`, missing parent folders are made first (inside the root only).
 */
export async function pageFile(root: string, name: string, opts: { create?: boolean } = {}): Promise<{ name: string; file: string; realRoot: string }> {
  const page = normalizePageName(name);
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const segments = page.split('/');
  const parent = join(realRoot, ...segments.slice(0, -1));
  if (opts.create) {
    // Walk down one folder at a time, so a symlinked folder is caught before anything is made beyond it.
    let dir = realRoot;
    for (const s of segments.slice(0, -1)) {
      dir = join(dir, s);
      await mkdir(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      assertInside(realRoot, await realpath(dir), name);
    }
  }
  const realParent = await realpath(parent).catch(() => parent);
  assertInside(realRoot, realParent, name);
  const file = await withItsExtension(realParent, segments[segments.length - 1]!);
  const realFile = await realpath(file).catch(() => undefined);
  if (realFile) assertInside(realRoot, realFile, name);
  // A link whose target does not exist resolves to nothing, yet a write follows it and creates its target wherever it
  // points (a cloned repository can hold such a link): refused, as a link out of the folder is.
  else if (
    await lstat(file).then(
      (s) => s.isSymbolicLink(),
      () => false,
    )
  ) {
    throw new WikiError(`Page '${name}' is a link to a file that does not exist (it may lead outside the wiki folder); it was not touched.`);
  }
  return { name: page, file, realRoot };
}

/** `<base>.md` in `dir`, or the file there whose extension is .md in other letters (README.MD, made by hand), as listed. */
async function withItsExtension(dir: string, base: string): Promise<string> {
  const file = join(dir, `${base}.md`);
  if (
    await lstat(file).then(
      () => true,
      () => false,
    )
  )
    return file;
  const other = (await readdir(dir).catch(() => [] as string[])).find((n) => n.length === base.length + 3 && n.startsWith(base) && /\.md$/i.test(n));
  return other ? join(dir, other) : file;
}

function assertInside(root: string, target: string, name: string): void {
  if (target !== root && !target.startsWith(root.endsWith(sep) ? root : root + sep)) {
    throw new WikiError(`Page '${name}' would be outside the wiki folder (a link leads elsewhere); it was not touched.`);
  }
}
