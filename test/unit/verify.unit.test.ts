// Verify before Apply, the parts that need no runtime: the bound on what is kept of a command's
// output, the words the card, the orchestrator and Apply's confirm use, and the command suggested
// from what a project declares.
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suggestVerifyCommand } from '../../src/core/changes/verifySuggestion';
import {
  describeVerify,
  MAX_VERIFY_CHARS,
  MAX_VERIFY_LINES,
  outputTail,
  verifyNote,
  verifyWarning,
  type VerifyRecord,
} from '../../src/core/changes/verifyRecord';

const failed: VerifyRecord = { command: 'npm test', state: 'failed', exitCode: 1, durationMs: 4210, tail: '1 failing\n  at a.test.ts:3', at: 0, tree: 't1' };

describe('verify before apply', () => {
  it(`keeps at most the last ${MAX_VERIFY_LINES} lines and ${MAX_VERIFY_CHARS} characters of the output`, () => {
    const many = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n');
    const tail = outputTail(`${many}\n\n`);
    assert.equal(tail.split('\n').length, MAX_VERIFY_LINES);
    assert.equal(tail.split('\n').at(-1), 'line 999');
    const wide = Array.from({ length: 10 }, (_, i) => `${i}`.repeat(1000)).join('\n');
    const cut = outputTail(wide);
    assert.equal(cut.length, MAX_VERIFY_CHARS);
    assert.ok(cut.endsWith('9'.repeat(1000)));
    assert.equal(outputTail(''), '');
  });

  it('says passed, failed (exit code or why) and not run in one line each', () => {
    assert.equal(describeVerify({ ...failed, state: 'passed', exitCode: 0 }), 'verify passed: npm test (4.2 s)');
    assert.equal(describeVerify(failed), 'verify failed: npm test exited 1 after 4.2 s');
    assert.equal(
      describeVerify({ ...failed, exitCode: undefined, reason: 'did not finish within 600 s (baton.workers.timeoutMs)' }),
      'verify failed: npm test did not finish within 600 s (baton.workers.timeoutMs)',
    );
    assert.equal(describeVerify({ ...failed, state: 'not-run', reason: 'the sandbox is off' }), 'verify not run: the sandbox is off');
    assert.equal(verifyNote(failed), '\n\nVerify failed: npm test exited 1 after 4.2 s. Its last lines:\n1 failing\n  at a.test.ts:3');
    assert.equal(verifyNote({ ...failed, state: 'passed', exitCode: 0 }), '\n\nVerify passed: npm test (4.2 s).');
  });

  it('warns Apply of a failure, a verify not run, and a pass on an earlier version; a current pass needs no word', () => {
    assert.deepEqual(verifyWarning(failed, 't1'), { kind: 'failed', line: 'verify failed: npm test exited 1 after 4.2 s', tail: failed.tail });
    assert.equal(verifyWarning(failed, 't2')?.line, 'verify failed: npm test exited 1 after 4.2 s (on an earlier version of these changes)');
    assert.equal(verifyWarning({ ...failed, state: 'not-run', reason: 'the sandbox is off', tail: '' })?.kind, 'not-run');
    const passed: VerifyRecord = { ...failed, state: 'passed', exitCode: 0, tail: 'ok' };
    assert.equal(verifyWarning(passed, 't1'), undefined);
    assert.equal(verifyWarning(passed, undefined), undefined, 'a tree that could not be read is no reason to warn');
    assert.deepEqual(verifyWarning(passed, 't2'), {
      kind: 'stale',
      line: 'verify passed: npm test (4.2 s) (on an earlier version of these changes)',
      tail: '',
    });
    assert.equal(verifyWarning(undefined, 't1'), undefined);
  });

  describe('the suggested command', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'baton-verify-suggest-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("is package.json's test script through the project's package manager", async () => {
      await writeFile(join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'vitest run' } }));
      assert.equal(await suggestVerifyCommand(dir), 'npm test');
      await writeFile(join(dir, 'pnpm-lock.yaml'), '');
      assert.equal(await suggestVerifyCommand(dir), 'pnpm test');
    });

    it("is not npm's placeholder script, nor anything for a project that declares no tests", async () => {
      await writeFile(join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }));
      assert.equal(await suggestVerifyCommand(dir), undefined);
      await rm(join(dir, 'package.json'));
      await writeFile(join(dir, 'README.md'), '# nothing to test');
      assert.equal(await suggestVerifyCommand(dir), undefined);
    });

    it('follows the other ecosystems squad_analyze knows', async () => {
      await writeFile(join(dir, 'Cargo.toml'), '[package]\nname = "x"\n');
      assert.equal(await suggestVerifyCommand(dir), 'cargo test');
      await rm(join(dir, 'Cargo.toml'));
      await writeFile(join(dir, 'go.mod'), 'module x\n');
      assert.equal(await suggestVerifyCommand(dir), 'go test ./...');
      await rm(join(dir, 'go.mod'));
      await mkdir(join(dir, 'tests'));
      await writeFile(join(dir, 'pyproject.toml'), '[tool.pytest.ini_options]\n');
      assert.equal(await suggestVerifyCommand(dir), 'python -m pytest');
    });
  });
});
