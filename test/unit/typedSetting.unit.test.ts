// The readers of Baton's settings that are not numbers (settings.ts reads every one through them): a value of the
// wrong type in settings.json reads as the default (a list keeps its good items, a lone text is a list of one) and is
// named for Doctor and the warning, never failing a turn; an environment entry is named without its value.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_OVERRIDE_KEYWORDS, TIERS } from '../../src/core/orchestrator/router';
import {
  readChoiceSetting,
  readEnvironmentSetting,
  readFlagSetting,
  readTextListSetting,
  readTextMapSetting,
  readTextSetting,
} from '../../src/core/util/typedSetting';
import { ProtectedPaths, resolveWorkingDir } from '../../src/core/workers/protectedPaths';

describe('settings of the wrong type', () => {
  it('a value of its type is used as set; one not set reads as the default, with no problem', () => {
    assert.deepEqual(readTextSetting('baton.workers.verifyCommand', ' npm test ', ''), { value: 'npm test' });
    assert.deepEqual(readTextSetting('baton.workers.verifyCommand', undefined, ''), { value: '' });
    assert.deepEqual(readTextListSetting('baton.workers.worktreeInclude', ['.env', ' '], []), { value: ['.env'] });
    assert.deepEqual(readTextListSetting('baton.routing.premiumKeywords', undefined, DEFAULT_OVERRIDE_KEYWORDS), { value: DEFAULT_OVERRIDE_KEYWORDS });
    assert.deepEqual(readFlagSetting('baton.routing.auto', true, false), { value: true });
    assert.deepEqual(readChoiceSetting('baton.workers.sandbox', 'off', ['auto', 'off'], 'auto'), { value: 'off' });
    assert.deepEqual(readEnvironmentSetting('baton.workers.environment', { JAVA_HOME: true, NODE_ENV: 'development', OFF: false }), {
      value: { JAVA_HOME: true, NODE_ENV: 'development' },
    });
  });

  it('text of the wrong type (verifyCommand 1 or null, skills.indexUrl 5) reads as the default and is named', () => {
    assert.deepEqual(readTextSetting('baton.workers.verifyCommand', 1, ''), {
      value: '',
      problem: 'baton.workers.verifyCommand has a value of the wrong type (1): it must be text. Baton uses the default, none, until it is fixed.',
    });
    assert.deepEqual(readTextSetting('baton.workers.verifyCommand', null, ''), {
      value: '',
      problem: 'baton.workers.verifyCommand has a value of the wrong type (null): it must be text. Baton uses the default, none, until it is fixed.',
    });
    assert.equal(readTextSetting('baton.skills.indexUrl', 5, '').value, '');
    assert.equal(readTextSetting('baton.model', 42, 'claude-sonnet-4.5').value, 'claude-sonnet-4.5');
  });

  it("http.proxy of the wrong type is ignored and named by its type only: a proxy's value may hold a password", () => {
    const reading = readTextSetting('http.proxy', { url: 'http://alice:s3cret@proxy:8080' }, '', { secret: true });
    assert.equal(reading.value, '');
    assert.equal(reading.problem, 'http.proxy has a value of the wrong type (an object): it must be text. Baton uses the default, none, until it is fixed.');
    assert.match(readTextSetting('http.proxy', 8080, '', { secret: true }).problem ?? '', /\(a number\)/);
  });

  it('a list of the wrong type: a lone text is a list of that one entry, items not text are dropped, null reads as the default', () => {
    assert.deepEqual(readTextListSetting('baton.workers.worktreeInclude', 'node_modules', []), {
      value: ['node_modules'],
      problem:
        'baton.workers.worktreeInclude is the text "node_modules", but it must be a list of text. Baton takes it as a list of that one entry until it is fixed.',
    });
    assert.deepEqual(readTextListSetting('baton.workers.worktreeInclude', null, []), {
      value: [],
      problem:
        'baton.workers.worktreeInclude has a value of the wrong type (null): it must be a list of text. Baton uses the default, none, until it is fixed.',
    });
    assert.deepEqual(readTextListSetting('baton.routing.premiumKeywords', 'design', DEFAULT_OVERRIDE_KEYWORDS).value, ['design']);
    assert.deepEqual(readTextListSetting('baton.routing.premiumKeywords', null, DEFAULT_OVERRIDE_KEYWORDS).value, DEFAULT_OVERRIDE_KEYWORDS);
    assert.deepEqual(readTextListSetting('baton.routing.premiumKeywords', [1, null, 'css'], DEFAULT_OVERRIDE_KEYWORDS), {
      value: ['css'],
      problem: 'baton.routing.premiumKeywords has items of the wrong type (1, null): each must be text. Baton leaves them out until they are fixed.',
    });
  });

  it('protectedPaths written as one text protects that path, not each of its characters (a worker may still work in a project)', () => {
    const home = mkdtempSync(join(tmpdir(), 'baton-typed-'));
    try {
      const { value, problem } = readTextListSetting('baton.workers.protectedPaths', '/srv/secrets', []);
      assert.deepEqual(value, ['/srv/secrets']);
      assert.match(problem ?? '', /^baton\.workers\.protectedPaths is the text "\/srv\/secrets", but it must be a list of text/);
      const paths = new ProtectedPaths({ homeDir: home, extra: value });
      assert.ok(paths.labels.includes('/srv/secrets'));
      assert.ok(!paths.labels.includes('/'), 'the root is not protected');
      assert.deepEqual(resolveWorkingDir(home, paths), { ok: true, dir: home });
      assert.equal(paths.match('/srv/secrets/key.pem'), '/srv/secrets');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a choice, a flag or the tiers of the wrong type read as the default and are named', () => {
    assert.deepEqual(readChoiceSetting('baton.workers.sandbox', false, ['auto', 'off'], 'auto'), {
      value: 'auto',
      problem:
        'baton.workers.sandbox has a value of the wrong type (false): it must be one of "auto", "off". Baton uses the default, "auto", until it is fixed.',
    });
    assert.deepEqual(readChoiceSetting('baton.workers.network', 'closed', ['internet', 'allow', 'deny'], 'internet'), {
      value: 'internet',
      problem: 'baton.workers.network is "closed", but it must be one of "internet", "allow", "deny". Baton uses the default, "internet", until it is fixed.',
    });
    assert.deepEqual(readFlagSetting('baton.allowSelfEdit', 'true', false).value, false);
    assert.match(
      readFlagSetting('baton.allowSelfEdit', 'true', false).problem ?? '',
      /^baton\.allowSelfEdit has a value of the wrong type \("true"\): it must be true or false/,
    );
    assert.deepEqual(readTextMapSetting('baton.routing.tiers', 'gpt-4', TIERS), {
      value: {},
      problem: 'baton.routing.tiers has a value of the wrong type ("gpt-4"): it must be an object. Baton uses the default, {}, until it is fixed.',
    });
    assert.deepEqual(readTextMapSetting('baton.routing.tiers', { fast: 5, premium: 'o3' }, TIERS), {
      value: { premium: 'o3' },
      problem: 'baton.routing.tiers has a value of the wrong type under fast: each must be text. Baton uses the default for it until it is fixed.',
    });
  });

  it('baton.workers.environment: a name with = or a NUL, or a value with a NUL, is left out and named without any value', () => {
    const reading = readEnvironmentSetting('baton.workers.environment', {
      JAVA_HOME: '/opt/j\u0000dk',
      'A=B': 'x',
      'TOKEN=abc123': true,
      'NUL\u0000': 'y',
      PORT: 8080,
      NODE_ENV: 'development',
    });
    assert.deepEqual(reading.value, { NODE_ENV: 'development' });
    assert.equal(
      reading.problem,
      'baton.workers.environment: "A=…", "TOKEN=…", "NUL\\u0000" cannot be the name of an environment variable (letters, digits and _ only, not starting with a digit); the value of JAVA_HOME, PORT must be true, false or text without a NUL character. Baton leaves them out until fixed.',
    );
    for (const secret of ['/opt/j', 'abc123', '8080']) assert.ok(!reading.problem?.includes(secret), `the problem shows a value: ${secret}`);
    assert.deepEqual(readEnvironmentSetting('baton.workers.environment', 'FOO=1'), {
      value: {},
      problem: 'baton.workers.environment has a value of the wrong type (text): it must be an object. Baton uses the default, {}, until it is fixed.',
    });
  });

  it('settings.ts takes every value as it is in settings.json (unknown) and gives it to a reader of its type', () => {
    // A `get<string[]>` promised a type VS Code never checks: `.filter` on a text failed every turn.
    const source = readFileSync(join(__dirname, '..', '..', 'src', 'vscode', 'settings.ts'), 'utf8');
    const typedGets = source.match(/\.get<(?!unknown>)[^>]*>/g) ?? [];
    assert.deepEqual(typedGets, [], 'a setting read with a type VS Code does not enforce');
  });
});
