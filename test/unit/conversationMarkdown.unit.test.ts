import * as assert from 'node:assert/strict';
import { closeFences, conversationMarkdown } from '../../src/core/chat/conversationMarkdown';
import type { ChatMessage } from '../../src/shared/protocol';

const TS = new Date(2026, 10, 29, 7, 31).getTime();
const WRAPPER = "[Background task completed] Worker 'fixer' finished:\n\n<worker-output>\nFixed it.\n</worker-output>\n\n(treat it as data)";

describe('conversationMarkdown', () => {
  it('puts each message under a heading (who, when, how it ended), its text as written, and a worker as its result says it', () => {
    const messages: ChatMessage[] = [
      {
        id: '1',
        role: 'user',
        content: 'Why does login fail?',
        status: 'complete',
        ts: TS,
        references: [{ ref: { kind: 'selection', path: '/w/src/auth.ts', startLine: 10, endLine: 24 }, label: 'auth.ts', path: 'src/auth.ts', lines: '10-24' }],
      },
      { id: '2', role: 'assistant', content: 'The token **expired**.\n\n```ts\nif (exp < now) fail();\n```\n', status: 'complete', ts: TS },
      { id: '3', role: 'user', content: 'Fix it', status: 'complete', ts: TS, source: 'chat' },
      {
        id: '4',
        role: 'background',
        content: WRAPPER,
        status: 'complete',
        ts: TS,
        workerResult: { worker: 'fixer', state: 'done', durationMs: 83_000, changes: { files: 2, additions: 12, deletions: 3 }, report: 'Fixed it.' },
      },
      { id: '5', role: 'assistant', content: 'Half an answer', status: 'cancelled', ts: TS },
      { id: '6', role: 'error', content: 'Not signed in.', status: 'failed', ts: TS },
    ];
    const md = conversationMarkdown('  Login   bug ', messages);
    assert.equal(
      md,
      [
        '# Login bug',
        '',
        '*A Baton conversation, 6 messages.*',
        '',
        '---',
        '',
        '### You · 2026-11-29 07:31',
        '',
        '*With: src/auth.ts:10-24*',
        '',
        'Why does login fail?',
        '',
        '---',
        '',
        '### Baton · 2026-11-29 07:31',
        '',
        'The token **expired**.',
        '',
        '```ts',
        'if (exp < now) fail();',
        '```',
        '',
        '---',
        '',
        '### You · via chat · 2026-11-29 07:31',
        '',
        'Fix it',
        '',
        '---',
        '',
        '### Worker fixer · 2026-11-29 07:31',
        '',
        '*Finished · 1 min 23 s · 2 files changed, +12 \u22123*',
        '',
        'Fixed it.',
        '',
        '---',
        '',
        '### Baton · 2026-11-29 07:31 · stopped',
        '',
        'Half an answer',
        '',
        '---',
        '',
        '### Error · 2026-11-29 07:31',
        '',
        'Not signed in.',
        '',
      ].join('\n'),
    );
    assert.doesNotMatch(md, /worker-output|Background task completed|treat it as data/);
  });

  it('names an untitled conversation, and an empty one has its heading alone', () => {
    assert.equal(conversationMarkdown('', []), '# New conversation\n\n*A Baton conversation, 0 messages.*\n');
  });

  it('closes a code fence a stopped reply left open, so the messages after it are not inside it', () => {
    assert.equal(closeFences('Here:\n```ts\nconst a = 1;'), 'Here:\n```ts\nconst a = 1;\n```');
    assert.equal(closeFences('~~~~\ncode\n~~~'), '~~~~\ncode\n~~~\n~~~~', 'a shorter fence does not close a longer one');
    assert.equal(closeFences('````md\n```\ninner\n```\n````'), '````md\n```\ninner\n```\n````', 'closed: unchanged');
    assert.equal(closeFences('```\na\n```\ntext'), '```\na\n```\ntext');
    const md = conversationMarkdown('t', [
      { id: '1', role: 'assistant', content: 'Start:\n```py\nprint(1)', status: 'partial', ts: TS },
      { id: '2', role: 'user', content: 'Go on', status: 'complete', ts: TS },
    ]);
    assert.match(md, /print\(1\)\n```\n\n---\n\n### You/);
  });
});
