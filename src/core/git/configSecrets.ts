// Credentials kept in git's configuration, found by name. A worker in a repository reads that repository's config:
// git cannot run without it, so it cannot be a protected path, and whatever it holds can reach the model. So Baton
// says where one is (Doctor), never what it is, and the user moves it to a credential helper.
import type { Git } from './git';

/** A config entry that holds a credential: where git read it and its key; never its value. */
export interface ConfigSecret {
  /** git's scope: `local` (the repository's .git/config), `worktree`, `global`, `system`, `command`. */
  scope: string;
  key: string;
  what: 'a password in a URL' | 'an authorization header';
}

// `scheme://user:password@`: a URL's user info with a password in it (a token, usually).
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s@:]*:[^/\s@]+@/i;

/** The entries of the config git reads in `cwd` that hold a credential, in git's order. */
export async function configSecrets(git: Git, cwd: string): Promise<ConfigSecret[]> {
  const out = await git.run(['config', '--list', '--show-scope', '-z'], { cwd });
  const fields = out.split('\0');
  const found: ConfigSecret[] = [];
  // Pairs of fields: the scope, then `key\nvalue` (a key alone for a bare boolean).
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]!;
    const entry = fields[i + 1]!;
    const cut = entry.indexOf('\n');
    const key = cut < 0 ? entry : entry.slice(0, cut);
    const value = cut < 0 ? '' : entry.slice(cut + 1);
    // The key too: url.<base>.insteadOf puts the URL in the key's middle part.
    if (URL_PASSWORD.test(key) || URL_PASSWORD.test(value)) found.push({ scope, key: redactKey(key), what: 'a password in a URL' });
    else if (/\.extraheader$/i.test(key) && /^\s*(proxy-)?authorization\s*:/i.test(value))
      found.push({ scope, key: redactKey(key), what: 'an authorization header' });
  }
  return found;
}

/** The key as a report may show it: a password in its middle part replaced. */
function redactKey(key: string): string {
  return key.replace(/(:\/\/[^/\s@:]*:)[^/\s@]+@/gi, '$1***@');
}

/** One line for Doctor: the entries, or undefined when there are none. */
export function describeConfigSecrets(folder: string, secrets: readonly ConfigSecret[]): string | undefined {
  if (!secrets.length) return undefined;
  const where = secrets.map((s) => `${s.key} (${s.scope}: ${s.what})`).join(', ');
  return `${folder}: git's config holds ${secrets.length === 1 ? 'a credential' : `${secrets.length} credentials`}, ${where}. A worker there can read it (git needs its config): keep it in a credential helper instead.`;
}
