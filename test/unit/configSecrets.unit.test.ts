// Credentials in git's config, found by name and never shown: a worker reads the config git reads where it works, so
// Doctor names where one is. Real git, a real repository, a global config of the test's own.
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSecrets, describeConfigSecrets } from '../../src/core/git/configSecrets';
import { Git } from '../../src/core/git/git';
import { makeRepo, TEST_GIT_ENV, testGit } from '../support/gitFixture';

describe('credentials in git\u2019s config (real git)', () => {
  let dir: string;
  let repo: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-configsecrets-'));
    repo = await makeRepo(testGit(), join(dir, 'repo'), { 'a.txt': 'a\n' });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('names a password in a remote URL, in an insteadOf base and an authorization header, by key and scope; never the secret', async () => {
    const global = join(dir, 'gitconfig');
    await writeFile(global, '[http]\n\tproxy = http://me:proxy-pass@proxy.invalid:3128\n');
    assert.deepEqual(await configSecrets(testGit(), repo), [], 'a fresh repository holds none');
    const git = new Git({ env: { ...TEST_GIT_ENV, GIT_CONFIG_GLOBAL: global } });
    await git.run(['remote', 'add', 'origin', 'https://bob:tok-SECRET-1@git.invalid/x/y.git'], { cwd: repo });
    await git.run(['remote', 'add', 'clean', 'https://git.invalid/x/z.git'], { cwd: repo });
    await git.run(['config', 'http.https://git.invalid/.extraheader', 'AUTHORIZATION: basic SECRET-2'], { cwd: repo });
    await git.run(['config', '--add', 'http.https://git.invalid/.extraheader', 'X-Trace: on'], { cwd: repo });
    await git.run(['config', 'url.https://tok:SECRET-3@git.invalid/.insteadOf', 'https://git.invalid/'], { cwd: repo });
    await git.run(['config', 'core.pager', 'less'], { cwd: repo });
    const found = await configSecrets(git, repo);
    assert.deepEqual(found, [
      { scope: 'global', key: 'http.proxy', what: 'a password in a URL' },
      { scope: 'local', key: 'remote.origin.url', what: 'a password in a URL' },
      { scope: 'local', key: 'http.https://git.invalid/.extraheader', what: 'an authorization header' },
      { scope: 'local', key: 'url.https://tok:***@git.invalid/.insteadof', what: 'a password in a URL' },
    ]);
    const line = describeConfigSecrets(repo, found)!;
    assert.match(line, /git's config holds 4 credentials, http\.proxy \(global: a password in a URL\), remote\.origin\.url \(local/);
    assert.doesNotMatch(line, /SECRET|proxy-pass/);
    assert.equal(describeConfigSecrets(repo, []), undefined);
  });
});
