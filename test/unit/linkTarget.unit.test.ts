import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, win32 } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveLinkTarget } from '../../src/vscode/linkTarget';

describe('link targets from the panel', () => {
  const ws = '/home/u/project';
  const folders = [ws, '/home/u/other'];

  it('opens web and mail links outside VS Code', () => {
    assert.deepEqual(resolveLinkTarget('https://example.com/a?b=1', { folders }), { kind: 'external', uri: 'https://example.com/a?b=1' });
    assert.deepEqual(resolveLinkTarget('HTTP://example.com', { folders }), { kind: 'external', uri: 'http://example.com/' });
    assert.equal(resolveLinkTarget('mailto:a@b.c', { folders })?.kind, 'external');
  });

  it('opens files only inside a workspace folder, relative links against the first', () => {
    assert.deepEqual(resolveLinkTarget('src/a.ts', { folders }), { kind: 'file', path: `${ws}/src/a.ts` });
    assert.deepEqual(resolveLinkTarget('src/a.ts#L12', { folders }), { kind: 'file', path: `${ws}/src/a.ts`, line: 12 });
    assert.deepEqual(resolveLinkTarget('file:///home/u/other/b.ts', { folders }), { kind: 'file', path: '/home/u/other/b.ts' });
    assert.deepEqual(resolveLinkTarget('file:///home/u/project/my%20file.ts', { folders }), { kind: 'file', path: `${ws}/my file.ts` });
    for (const outside of [
      'file:///etc/passwd',
      '../secret.txt',
      'src/../../secret',
      '%2e%2e/secret',
      '/etc/passwd',
      'file:///home/u/projectx/a',
      'file://evil.example/share/a',
    ]) {
      assert.equal(resolveLinkTarget(outside, { folders }), undefined, outside);
    }
    assert.equal(resolveLinkTarget('src/a.ts', { folders: [] }), undefined, 'no workspace, no files');
  });

  it('refuses every other scheme', () => {
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,x',
      'command:workbench.action.terminal.new',
      'vscode://x',
      'vscode-webview://x',
      '//evil.example',
      'ftp://x',
      '',
    ]) {
      assert.equal(resolveLinkTarget(bad, { folders }), undefined, bad);
    }
  });

  it('follows symlinks before checking, so a link cannot leave the workspace through one', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-link-')));
    try {
      const project = join(root, 'project');
      mkdirSync(project);
      writeFileSync(join(root, 'secret.txt'), 'x');
      writeFileSync(join(project, 'ok.txt'), 'x');
      symlinkSync(join(root, 'secret.txt'), join(project, 'escape.txt'));
      const options = { folders: [project], realpath: realpathSync.native };
      assert.deepEqual(resolveLinkTarget('ok.txt', options), { kind: 'file', path: join(project, 'ok.txt') });
      assert.deepEqual(resolveLinkTarget(pathToFileURL(join(project, 'ok.txt')).href, options), { kind: 'file', path: join(project, 'ok.txt') });
      assert.equal(resolveLinkTarget('escape.txt', options), undefined);
      assert.equal(resolveLinkTarget('missing.txt', options), undefined);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('on Windows, a link to a UNC path (\\\\host\\share, written %5C%5C…) is refused before realpath could reach the server', () => {
    const asked: string[] = [];
    const realpath = (p: string): string => (asked.push(p), p);
    const options = { folders: ['C:\\ws'], realpath, pathApi: win32 };
    for (const href of ['%5C%5Cevil.example%5Cshare%5Cx', '%5C%5C%3F%5CUNC%5Cevil.example%5Cshare', '..%5C..%5CWindows%5Cwin.ini', 'D:%5Cdata%5Cx.txt']) {
      assert.equal(resolveLinkTarget(href, options), undefined, href);
    }
    assert.deepEqual(asked, ['C:\\ws', 'C:\\ws', 'C:\\ws', 'C:\\ws'], 'realpath was asked for nothing but the workspace folder');
    assert.deepEqual(resolveLinkTarget('src%5Ca.ts#L3', options), { kind: 'file', path: 'C:\\ws\\src\\a.ts', line: 3 });
  });
});
