import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { sessionFingerprint } from '../../src/core/orchestrator/fingerprint';
import { buildRecoveryPrompt, buildSystemMessage } from '../../src/core/orchestrator/systemMessage';
import { DEFAULT_TIERS } from '../../src/core/orchestrator/router';

describe('session fingerprint', () => {
  const a = { name: 'remember', parameters: z.object({ content: z.string() }) };
  const b = { name: 'recall', parameters: z.object({ keyword: z.string().optional() }) };

  it('does not depend on tool order but on names, schemas, model and version', () => {
    const base = sessionFingerprint('1.0.0', 'm', [a, b]);
    assert.equal(base, sessionFingerprint('1.0.0', 'm', [b, a]));
    assert.match(base, /^[0-9a-f]{64}$/);
    assert.notEqual(base, sessionFingerprint('1.0.1', 'm', [a, b]));
    assert.notEqual(base, sessionFingerprint('1.0.0', 'other', [a, b]));
    assert.notEqual(base, sessionFingerprint('1.0.0', 'm', [a]));
    assert.notEqual(base, sessionFingerprint('1.0.0', 'm', [a, { name: 'recall', parameters: z.object({ keyword: z.number() }) }]));
  });
});

describe('system message', () => {
  it('states channels, delegation, memory, routing, self-edit protection, memories and the date', () => {
    const text = buildSystemMessage({
      memorySummary: '## Long-Term Memory\n**preference**:\n- [#1] Tabs',
      routing: { auto: true, model: 'x', tiers: { ...DEFAULT_TIERS }, overrides: [], cooldownMessages: 2 },
      selfEdit: false,
      installPath: '/ext/baton',
      workspaceFolders: ['/work/app'],
      now: new Date('2026-11-26T10:00:00Z'),
    });
    for (const needle of [
      '[via panel]',
      '[Background task completed]',
      'create_worker_session',
      'remember(',
      'fast (gpt-4.1)',
      '/ext/baton',
      '[#1] Tabs',
      '2026-11-26',
      '/work/app',
    ]) {
      assert.ok(text.includes(needle), `missing ${needle}`);
    }
  });

  it('recovery prompt tells the model not to answer the context', () => {
    const text = buildRecoveryPrompt(
      [
        { role: 'user', source: 'panel', content: 'fix it' },
        { role: 'assistant', source: 'panel', content: 'On it' },
      ],
      'expired',
    );
    assert.match(text, /^\[System: Session recovered\]/);
    assert.match(text, /do NOT respond/);
    assert.match(text, /\[panel\] User: fix it/);
    assert.match(text, /\[panel\] Baton: On it/);
    assert.equal(buildRecoveryPrompt([], 'x'), '');
  });

  it("recovery prompt carries the last compaction's summary before the recent turns", () => {
    const text = buildRecoveryPrompt([{ role: 'user', source: 'panel', content: 'and now?' }], 'edited', 'They chose zebra.');
    assert.match(text, /Earlier turns of this conversation, summarized:\nThey chose zebra\.\n[^]*\[panel\] User: and now\?/);
    assert.match(buildRecoveryPrompt([], 'x', 'They chose zebra.'), /summarized:\nThey chose zebra\./, 'a summary alone is context too');
  });
});
