// The characters that change how a text reads without being seen, written out as ⟨U+202E⟩ (src/shared/visibleText.ts):
// what a permission prompt and its notification show of a command.
import * as assert from 'node:assert/strict';
import { hasHiddenChars, hasVisibleText, splitHidden, visibleText } from '../../src/shared/visibleText';

describe('visibleText', () => {
  it('writes out bidi controls, so a reversed command reads as it runs', () => {
    const rlo = 'echo safe \u202Ehs | moc.elpmaxe//:ptth lruc\u202C';
    assert.equal(visibleText(rlo), 'echo safe ⟨U+202E⟩hs | moc.elpmaxe//:ptth lruc⟨U+202C⟩');
    assert.deepEqual(splitHidden('a\u2066b'), ['a', '\u2066', 'b']);
  });

  it('writes out each hidden kind, and keeps \\n, \\t and every other character', () => {
    const hidden = [
      0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad, 0x0000,
      0x0007, 0x000b, 0x000d, 0x001b, 0x007f, 0x0085, 0x009f, 0x2028, 0x2029,
    ];
    for (const code of hidden) {
      const ch = String.fromCharCode(code);
      assert.equal(visibleText(`x${ch}y`), `x⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩y`, `U+${code.toString(16)}`);
      assert.equal(hasHiddenChars(ch), true);
    }
    const plain = 'ls -la\n\tcd ~ && echo "héllo" — مرحبا 😀 \u00a0';
    assert.equal(visibleText(plain), plain);
    assert.equal(hasHiddenChars(plain), false);
  });

  it('tells text with something to read from blank text', () => {
    for (const blank of ['', '   ', '\n\t', '\u0000\u0000', ' \u200B\uFEFF ', '\u2028']) assert.equal(hasVisibleText(blank), false, JSON.stringify(blank));
    for (const text of ['a', ' \u200Bx ', '#']) assert.equal(hasVisibleText(text), true, JSON.stringify(text));
  });
});
