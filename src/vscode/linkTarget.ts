// Where a link clicked in the panel may go. Replies are written by a model, so a link is untrusted input: only web
// and mail links leave VS Code, and a file link opens only when it resolves inside a workspace folder (no
// ../ escape, no absolute path elsewhere, no symlink out when `realpath` is given). Pure: no vscode import, so the
// rule is unit-tested in plain Node (Windows' path rules too, through `pathApi`).
// A path is checked as written before `realpath` sees it: resolving one outside already acts. On Windows a link
// `%5C%5Chost%5Cshare` decodes to the UNC path \\host\share, and realpath there contacts that SMB server, offering the
// user's credentials (NTLM), for one click on a link in a reply.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export type LinkTarget = { kind: 'external'; uri: string } | { kind: 'file'; path: string; line?: number };

export interface LinkTargetOptions {
  /** Absolute paths of the workspace folders. Relative links resolve against the first. */
  folders: readonly string[];
  /** Resolves symlinks (fs.realpathSync.native); a path that cannot be resolved is refused. */
  realpath?: (p: string) => string;
  /** The platform's path rules (node:path); tests pass path.win32 for Windows' drive letters and UNC paths. */
  pathApi?: path.PlatformPath;
}

/** Where `href` may be opened, or undefined when it may not. */
export function resolveLinkTarget(href: string, { folders, realpath, pathApi = path }: LinkTargetOptions): LinkTarget | undefined {
  const trimmed = href.trim();
  // eslint-disable-next-line no-control-regex
  if (!trimmed || trimmed.length > 4096 || /[\u0000-\u001f\u007f]/.test(trimmed)) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === 'http' || scheme === 'https' || scheme === 'mailto') {
    try {
      return { kind: 'external', uri: new URL(trimmed).href };
    } catch {
      return undefined;
    }
  }
  let target: string;
  let fragment = '';
  if (scheme === 'file') {
    try {
      const url = new URL(trimmed);
      if (url.host && url.host !== 'localhost') return undefined;
      fragment = url.hash;
      url.hash = '';
      url.search = '';
      target = fileURLToPath(url);
    } catch {
      return undefined;
    }
  } else if (scheme === undefined || (scheme.length === 1 && pathApi.sep === '\\')) {
    if (trimmed.startsWith('//') || trimmed.startsWith('\\\\') || !folders.length) return undefined;
    const hashAt = trimmed.indexOf('#');
    const rel = hashAt === -1 ? trimmed : trimmed.slice(0, hashAt);
    fragment = hashAt === -1 ? '' : trimmed.slice(hashAt);
    let decoded: string;
    try {
      decoded = decodeURIComponent(rel);
    } catch {
      return undefined;
    }
    if (!decoded) return undefined;
    target = pathApi.resolve(folders[0]!, decoded);
  } else return undefined;

  const written = pathApi.resolve(target);
  // A folder as the workspace names it, and as it really is (a link in it may be written either way).
  const roots = folders.map((f) => pathApi.resolve(f));
  const realRoots = realpath ? folders.flatMap((f) => safeRealpath(realpath, pathApi.resolve(f)) ?? []) : roots;
  if (!within(pathApi, [...roots, ...realRoots], written)) return undefined;
  let resolved = written;
  if (realpath) {
    try {
      resolved = realpath(written);
    } catch {
      return undefined;
    }
    if (!within(pathApi, realRoots, resolved)) return undefined;
  }
  // #L12 or #12: the line to reveal (1-based), as GitHub and VS Code write it.
  const line = /^#L?(\d+)/i.exec(fragment)?.[1];
  return { kind: 'file', path: resolved, ...(line ? { line: Number(line) } : {}) };
}

function safeRealpath(realpath: (p: string) => string, p: string): string | undefined {
  try {
    return realpath(p);
  } catch {
    return undefined;
  }
}

function within(pathApi: path.PlatformPath, roots: readonly string[], p: string): boolean {
  return roots.some((root) => {
    const rel = pathApi.relative(root, p);
    return rel === '' || (!rel.startsWith('..') && !pathApi.isAbsolute(rel));
  });
}
