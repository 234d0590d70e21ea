// What the highlighter's idle-time warm-up colours for each common grammar (codeHighlight.ts warmUpHighlighter).
// highlight.js keeps a regex for each mode of a grammar (a rule block in css, a string, a comment, a class body…) and
// V8 compiles a regex the first time it runs, so colouring a bare word compiled the top level's alone: the first css
// rule block of a reply then compiled the rest in the reply's frame (6–20 ms of script for `.a { b: url(c) }`,
// traced). Each sample holds the constructs replies' code has, so its modes' regexes are compiled before any reply.
// Short: a sample is coloured in one idle slice of its own.

/** The grammars to warm, the most used first, each with its sample. */
export const WARM_SAMPLES: ReadonlyArray<readonly [grammar: string, sample: string]> = [
  [
    'typescript',
    [
      "import { a, type B } from './b';",
      '/** Doc @param c */',
      'export abstract class D<T> extends E implements F {',
      '  private readonly g: Map<string, number[]> = new Map();',
      '  constructor(public h?: string) { super(); }',
      '  async i(j: T, ...k: unknown[]): Promise<void> {',
      '    const l = `m ${j} n`, o = /p+/g; // q',
      "    if (!j) throw new Error('r'); else return await this.s?.(j as never);",
      '  }',
      '}',
      'export const t = (u: number): boolean => u > 0x1f && true;',
      'type V = { w: string } | null; interface X { y(): void }',
      '@dec() enum Z { A = 1 }',
    ].join('\n'),
  ],
  [
    'javascript',
    [
      "import a from './a.js'; const fs = require('fs');",
      '/** Doc @param b */',
      'export class C extends D { static e = 1; #f; get g() { return this.#f; } }',
      'async function h(i, j = 2, ...k) {',
      "  const l = `m ${i}`, n = /o+/g, p = { q: 'r', [s]: null }; // t",
      '  if (i) throw new Error("u"); else return await fetch(l).then((v) => v.json());',
      '}',
      'module.exports = { h };',
    ].join('\n'),
  ],
  [
    'python',
    [
      'import os',
      'from a import b as c  # d',
      '@decorator(e=1)',
      'class F(G):',
      '    """Doc."""',
      '    def h(self, i: int, *j, k=None, **l) -> str:',
      "        m = f\"n {i!r:>4}\" + r'o' + b'p'",
      '        return [q for q in range(3) if q is not None and True]',
      'async def r(): await s(lambda t: t ** 2, 0x1F, 1.5e3)',
    ].join('\n'),
  ],
  [
    'bash',
    [
      '#!/usr/bin/env bash',
      'set -euo pipefail  # a',
      'export B="${HOME}/c:$PATH"',
      'if [[ -f "$1" ]]; then echo "d $(date +%s) ${e:-f}" | grep -v \'g\' > /dev/null 2>&1; fi',
      'for h in 1 2; do i=$((h + 1)); done',
      'j() { local k=$1; return 0; }',
      'cat <<EOF',
      'l',
      'EOF',
    ].join('\n'),
  ],
  ['json', '{"a": [1, -2.5e3, true, false, null, "b\\n"], "c": {"d": {}}}'],
  [
    'css',
    [
      '@import url("a.css");',
      '/* b */',
      ':root { --c: #fff; }',
      '@media (max-width: 600px) {',
      '  .d:hover > #e, div[f="g"]::before, h1 + p ~ span {',
      '    color: var(--c) !important; margin: 0 auto 1.5em; background: url(h.png) no-repeat;',
      "    font-family: 'i', sans-serif; transform: rotate(45deg); width: calc(100% - 2px);",
      '  }',
      '}',
      '@keyframes j { from { opacity: 0 } to { opacity: 1 } }',
    ].join('\n'),
  ],
  [
    'xml',
    [
      '<?xml version="1.0"?>',
      '<!DOCTYPE html>',
      '<!-- a -->',
      '<div class="b" id=\'c\' hidden data-d=e><br/><p>f &amp; g</p><![CDATA[h]]></div>',
      '<style>.i { color: red; }</style>',
      '<script>const j = 1;</script>',
    ].join('\n'),
  ],
  ['shell', '$ cd a && npm test -- --b="c" # d\nadded 1 package in 2s\n> echo $E'],
  [
    'yaml',
    ['# a', 'b: 1', 'c: "d"', "e: 'f'", 'g:', '  - h: true', '    i: [1, 2.5, null]', '  - {j: k}', 'l: |', '  m', 'n: &o p', 'q: *o', '---'].join('\n'),
  ],
  ['diff', 'diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ f\n-a\n+b\n c'],
];
