// Editor context in plain Node: bounds and their markers, binary detection, the path policy (realpath,
// protected, outside, missing), the prompt tags, what the log keeps, git's changes on a real repository,
// and the protocol's validation of references from the webview.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResolvedReference } from '../../src/core/context/contextPort';
import { gitVisibleFiles, workingTreeChanges } from '../../src/core/context/gitChanges';
import { boundText, CONTEXT_LIMITS, countLines } from '../../src/core/context/limits';
import { formatFolderListing, formatProblems, sliceLines, type Problem } from '../../src/core/context/listings';
import { checkReferencePath, type PathPolicyOptions } from '../../src/core/context/pathPolicy';
import { escapeContent, fitToBudget, formatReferences, toStored } from '../../src/core/context/promptTags';
import { referenceKey, referenceLabel, referenceSchema, storedReferencesOf } from '../../src/core/context/references';
import { looksBinary, readTextExcerpt } from '../../src/core/context/textFile';
import { workerNameFor } from '../../src/core/context/workerName';
import { ProtectedPaths } from '../../src/core/workers/protectedPaths';
import { parseWebviewMessage } from '../../src/shared/protocol';

describe('editor context', () => {
  let root: string;
  let ws: string;
  let home: string;

  beforeEach(() => {
    // realpath'd: on macOS the temp dir sits behind a symlink.
    root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-context-')));
    ws = join(root, 'ws');
    home = join(root, 'home');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY');
    writeFileSync(join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function policy(extra: Partial<PathPolicyOptions> = {}): PathPolicyOptions {
    return { workspaceFolders: [ws], protectedPaths: new ProtectedPaths({ homeDir: home }), confirmedOutside: new Set(), ...extra };
  }

  describe('bounds', () => {
    it('leaves text within the limit alone and cuts longer text at a line with a truncated marker', () => {
      assert.deepEqual(boundText('short', 100), { text: 'short', truncated: false });
      const long = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n');
      const b = boundText(long, 500, 'selection');
      assert.equal(b.truncated, true);
      assert.ok(b.text.length <= 500, `${b.text.length}`);
      assert.match(b.text, /\n\[truncated: the first \d+ of 1000 lines of the selection/);
      // Cut at a line boundary: the last kept line is whole.
      const kept = b.text.slice(0, b.text.lastIndexOf('\n['));
      assert.match(kept.split('\n').at(-1)!, /^line \d+$/);
      assert.equal(b.note, b.text.slice(b.text.lastIndexOf('[') + 1, -1));
    });

    it('never splits a surrogate pair', () => {
      const b = boundText('😀'.repeat(200), 150);
      assert.ok(!/[\ud800-\udbff]\n/.test(b.text));
    });

    it('counts lines', () => {
      assert.equal(countLines(''), 0);
      assert.equal(countLines('a'), 1);
      assert.equal(countLines('a\nb\n'), 2);
      assert.equal(sliceLines('1\n2\n3\n4', 2, 3), '2\n3');
    });
  });

  describe('files', () => {
    it('tells binary from text by NUL and control bytes', () => {
      assert.equal(looksBinary(Buffer.from('plain text\n\twith tabs\r\n')), false);
      assert.equal(looksBinary(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])), true);
      assert.equal(looksBinary(Buffer.from('ünïcödé ✓')), false);
      assert.equal(looksBinary(Buffer.alloc(0)), false);
    });

    it('reads a small file whole, a 5 MB file as its first 64 KB with a note, and refuses a binary or missing one', async () => {
      const small = await readTextExcerpt(join(ws, 'src', 'a.ts'), 'src/a.ts');
      assert.deepEqual(small, { ok: true, text: 'export const a = 1;\n', truncated: false, size: 20 });

      const big = join(ws, 'big.log');
      writeFileSync(big, `${'0123456789abcdef'.repeat(4)}\n`.repeat(80_000)); // 5.2 MB
      const excerpt = await readTextExcerpt(big, 'big.log');
      assert.ok(excerpt.ok);
      if (!excerpt.ok) return;
      assert.equal(excerpt.truncated, true);
      assert.ok(Buffer.byteLength(excerpt.text) <= CONTEXT_LIMITS.fileBytes + 200);
      assert.match(excerpt.text, /\[truncated: big\.log is 5\.0 MB; only its first \d+ lines \(\d+\.\d KB\) are attached\]$/);
      assert.match(excerpt.note ?? '', /^truncated: big\.log is 5\.0 MB/);

      const png = join(ws, 'logo.png');
      writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
      const binary = await readTextExcerpt(png, 'logo.png');
      assert.deepEqual(binary.ok ? undefined : binary.error.kind, 'binary');
      assert.match(binary.ok ? '' : binary.error.message, /logo\.png is a binary file \(16 B\): Baton attaches text files only/);

      const gone = await readTextExcerpt(join(ws, 'deleted.ts'), 'deleted.ts');
      assert.deepEqual(gone.ok ? undefined : gone.error.kind, 'missing');
      const folder = await readTextExcerpt(join(ws, 'src'), 'src');
      assert.deepEqual(folder.ok ? undefined : folder.error.kind, 'unavailable');
      // A FIFO (some tools leave one in a project): refused at once, never waited on for a writer.
      execFileSync('mkfifo', [join(ws, 'pipe')]);
      const fifo = await readTextExcerpt(join(ws, 'pipe'), 'pipe');
      assert.equal(fifo.ok ? undefined : fifo.error.message, 'pipe is not a regular file.');
    });

    it('cuts an excerpt with no line break on a whole UTF-8 character', async () => {
      const file = join(ws, 'one-line.txt');
      writeFileSync(file, 'é'.repeat(40_000)); // 80 KB, no newline
      const r = await readTextExcerpt(file, 'one-line.txt');
      assert.ok(r.ok && r.truncated);
      if (r.ok) assert.ok(!r.text.includes('\ufffd'), 'no replacement character from a cut sequence');
    });
  });

  describe('path policy', () => {
    it('shows workspace paths relative (prefixed by the folder in a multi-root workspace)', () => {
      const r = checkReferencePath(join(ws, 'src', 'a.ts'), policy());
      assert.ok(r.ok);
      if (r.ok) assert.deepEqual([r.display, r.outside, r.folder], ['src/a.ts', false, ws]);
      const other = join(root, 'other');
      mkdirSync(other);
      const multi = checkReferencePath(join(ws, 'src', 'a.ts'), policy({ workspaceFolders: [other, ws] }));
      assert.ok(multi.ok && multi.display === 'ws/src/a.ts');
    });

    it('refuses a protected path, also through a symlink in the workspace (realpath), and says where it leads', () => {
      const direct = checkReferencePath(join(home, '.ssh', 'id_rsa'), policy());
      assert.ok(!direct.ok && direct.error.kind === 'protected');
      symlinkSync(join(home, '.ssh'), join(ws, 'keys'));
      const viaLink = checkReferencePath(join(ws, 'keys', 'id_rsa'), policy());
      assert.ok(!viaLink.ok);
      if (viaLink.ok) return;
      assert.equal(viaLink.error.kind, 'protected');
      assert.match(viaLink.error.message, /keys\/id_rsa resolves to .*\.ssh\/id_rsa, which is inside the protected path ~\/\.ssh/);
      // A user-configured protected path counts as the built-in ones do.
      const custom = checkReferencePath(join(ws, 'src', 'a.ts'), policy({ protectedPaths: new ProtectedPaths({ homeDir: home, extra: [join(ws, 'src')] }) }));
      assert.ok(!custom.ok && custom.error.kind === 'protected');
    });

    it('calls a deleted file missing, and an outside file outside until the user confirms it', () => {
      const missing = checkReferencePath(join(ws, 'gone.ts'), policy());
      assert.ok(!missing.ok && missing.error.kind === 'missing');
      const outsideFile = join(root, 'notes.txt');
      writeFileSync(outsideFile, 'notes');
      const refused = checkReferencePath(outsideFile, policy());
      assert.ok(!refused.ok && refused.error.kind === 'outside');
      const asking = checkReferencePath(outsideFile, policy(), true);
      assert.ok(asking.ok && asking.outside);
      const confirmed = checkReferencePath(outsideFile, policy({ confirmedOutside: new Set([outsideFile]) }));
      assert.ok(confirmed.ok && confirmed.display === outsideFile);
      // A symlink from the workspace to the outside counts as outside: the real path decides.
      symlinkSync(outsideFile, join(ws, 'link.txt'));
      const viaLink = checkReferencePath(join(ws, 'link.txt'), policy());
      assert.ok(!viaLink.ok && viaLink.error.kind === 'outside');
      assert.ok(!checkReferencePath('relative/a.ts', policy()).ok);
    });
  });

  describe('prompt tags', () => {
    const selection: ResolvedReference = {
      ref: { kind: 'selection', path: '/ws/src/a.ts', startLine: 10, endLine: 24 },
      label: 'a.ts:10-24',
      path: 'src/a.ts',
      lines: '10-24',
      language: 'typescript',
      text: 'function f() {\n  return "</reference><reference kind=\\"file\\">";\n}',
      truncated: false,
      implicit: true,
    };

    it('tags each reference with kind, path and lines, and escapes tags inside the content', () => {
      const block = formatReferences([selection]);
      assert.match(block, /^<references>\n/);
      assert.match(block, /<reference kind="selection" path="src\/a\.ts" lines="10-24" language="typescript" from="active-editor">\nfunction f\(\) \{/);
      assert.equal(block.match(/<\/reference>/g)?.length, 1, 'only the real closing tag');
      assert.match(block, /\n<\/reference>\n<\/references>$/);
      assert.equal(escapeContent('</references>'), '</\u200breferences>');
      assert.equal(formatReferences([]), '');
    });

    it('keeps the whole message within the total budget, cutting the last references with a marker', () => {
      const big = (n: number): ResolvedReference => ({
        ref: { kind: 'file', path: `/ws/${n}` },
        label: `${n}`,
        path: `${n}`,
        text: 'x\n'.repeat(40_000),
        truncated: false,
      });
      const fitted = fitToBudget([big(1), big(2), big(3)], 200_000);
      assert.equal(fitted.reduce((n, r) => n + r.text.length, 0) <= 200_000, true);
      assert.deepEqual(
        fitted.map((r) => r.truncated),
        [false, false, true],
      );
      assert.match(fitted[2]!.text, /\[truncated: .*budget for references was reached/);
    });

    it('stores the text of a small selection only, and paths and notes always', () => {
      assert.equal(toStored(selection).text, selection.text);
      assert.deepEqual(toStored({ ...selection, text: 'y'.repeat(3000) }).text, undefined);
      const file = toStored({
        ref: { kind: 'file', path: '/ws/big.log' },
        label: 'big.log',
        path: 'big.log',
        text: 'x',
        truncated: true,
        note: 'truncated: big',
      });
      assert.deepEqual(file, { ref: { kind: 'file', path: '/ws/big.log' }, label: 'big.log', path: 'big.log', truncated: true, note: 'truncated: big' });
    });

    it('reads stored references back from meta, and nothing from a bad value', () => {
      const stored = [toStored(selection)];
      assert.deepEqual(storedReferencesOf(JSON.parse(JSON.stringify({ references: stored }))), stored);
      assert.deepEqual(storedReferencesOf({ references: [{ ref: { kind: 'nope' } }] }), []);
      assert.deepEqual(storedReferencesOf({ route: {} }), []);
      assert.deepEqual(storedReferencesOf(null), []);
    });
  });

  describe('references', () => {
    it('labels and keys', () => {
      assert.equal(referenceLabel({ kind: 'selection', path: '/w/src/a.ts', startLine: 3, endLine: 3 }), 'a.ts:3');
      assert.equal(referenceLabel({ kind: 'folder', path: '/w/src' }), 'src/');
      assert.equal(referenceLabel({ kind: 'problems' }), 'Problems');
      assert.equal(referenceKey({ kind: 'file', path: '/w/a' }), 'file:/w/a');
    });

    it('validates references from the webview with a clear error', () => {
      assert.equal(referenceSchema.safeParse({ kind: 'selection', path: '/a', startLine: 5, endLine: 2 }).success, false);
      const ok = parseWebviewMessage({
        type: 'chat/send',
        text: 'explain',
        references: [{ ref: { kind: 'changes' } }, { ref: { kind: 'file', path: '/w/a.ts' }, implicit: true }],
      });
      assert.ok(ok.ok);
      const bad = parseWebviewMessage({ type: 'chat/send', text: 'x', references: [{ ref: { kind: 'secrets', path: '/etc' } }] });
      assert.ok(!bad.ok);
      if (!bad.ok) assert.match(bad.error, /references\.0\.ref\.kind/);
      const tooMany = parseWebviewMessage({ type: 'chat/send', text: 'x', references: Array.from({ length: 21 }, () => ({ ref: { kind: 'changes' } })) });
      assert.ok(!tooMany.ok);
      assert.ok(!parseWebviewMessage({ type: 'context/pick', kind: 'everything' }).ok);
      assert.ok(!parseWebviewMessage({ type: 'context/drop', uris: [] }).ok);
    });
  });

  describe('lists', () => {
    it('lists problems errors first, bounded with a marker', () => {
      const p = (severity: Problem['severity'], line: number): Problem => ({
        path: 'src/a.ts',
        line,
        column: 1,
        severity,
        message: `m${line}`,
        source: 'ts',
        code: '2322',
      });
      const r = formatProblems([p('warning', 1), p('error', 9)], 'src/a.ts');
      assert.equal(r.text, '2 problem(s) in src/a.ts:\nsrc/a.ts:9:1 error: m9 [ts 2322]\nsrc/a.ts:1:1 warning: m1 [ts 2322]');
      const many = formatProblems(
        Array.from({ length: 150 }, (_, i) => p('error', i + 1)),
        'the workspace',
      );
      assert.equal(many.truncated, true);
      assert.match(many.text, /\[truncated: 50 more problem\(s\) not shown\]$/);
      assert.equal(formatProblems([], 'the workspace').text, 'No problems in the workspace.');
    });

    it('lists a folder, bounded by entries', () => {
      const r = formatFolderListing('src', ['b.ts', 'a.ts']);
      assert.equal(r.text, 'src/ (2 file(s)):\n  a.ts\n  b.ts');
      const many = formatFolderListing(
        'big',
        Array.from({ length: 400 }, (_, i) => `f${i}`),
      );
      assert.ok(many.truncated);
      assert.match(many.text, /\[truncated: 100 more file\(s\) not listed\]$/);
    });
  });

  describe('git', () => {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: ws,
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      });

    it('shows the diff of a modified file and the untracked files, and respects .gitignore', async () => {
      git('init', '-q');
      writeFileSync(join(ws, '.gitignore'), 'dist/\n');
      git('add', '.');
      git('commit', '-q', '-m', 'first');
      writeFileSync(join(ws, 'src', 'a.ts'), 'export const a = 2; // changed\n');
      writeFileSync(join(ws, 'new.ts'), 'new\n');
      mkdirSync(join(ws, 'dist'));
      writeFileSync(join(ws, 'dist', 'out.js'), 'built\n');
      const r = await workingTreeChanges(ws);
      assert.ok(r.ok);
      if (!r.ok) return;
      assert.match(r.text, /diff --git a\/src\/a\.ts b\/src\/a\.ts/);
      assert.match(r.text, /-export const a = 1;\n\+export const a = 2; \/\/ changed/);
      assert.match(r.text, /Untracked files \(1\):\nnew\.ts/);
      assert.equal(r.files, 2);
      const visible = await gitVisibleFiles(ws);
      assert.deepEqual([...(visible ?? [])].sort(), ['.gitignore', 'new.ts', 'src/a.ts']);
    });

    it('works before the first commit, and says so outside a repository', async () => {
      const outside = await workingTreeChanges(ws, 'ws');
      assert.ok(!outside.ok && outside.error.kind === 'unavailable');
      assert.match(outside.ok ? '' : outside.error.message, /ws is not in a git repository/);
      assert.equal(await gitVisibleFiles(ws), undefined);
      git('init', '-q');
      git('add', 'src/a.ts');
      const fresh = await workingTreeChanges(ws);
      assert.ok(fresh.ok && /\+export const a = 1;/.test(fresh.text));
    });

    it('bounds a huge diff', async () => {
      git('init', '-q');
      git('add', '.');
      git('commit', '-q', '-m', 'first');
      writeFileSync(join(ws, 'src', 'a.ts'), 'changed line\n'.repeat(20_000));
      const r = await workingTreeChanges(ws);
      assert.ok(r.ok && r.truncated);
      if (r.ok) {
        assert.ok(r.text.length <= CONTEXT_LIMITS.changesChars);
        assert.match(r.text, /\[truncated: the first \d+ of \d+ lines of the diff/);
      }
    });
  });

  it('names a worker from the folder and the task, never one taken', () => {
    assert.equal(workerNameFor('docs', 'Add a README section', []), 'docs-add-a-readme');
    assert.equal(workerNameFor('docs', 'Add a README section', ['docs-add-a-readme']), 'docs-add-a-readme-2');
    assert.equal(workerNameFor('Ünïcode Folder', '!!!', []), 'unicode-folder');
    assert.match(workerNameFor('x'.repeat(60), 'y'.repeat(60), []), /^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/);
  });
});
