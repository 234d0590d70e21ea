// Replies that made the panel's first, hand-written renderer take seconds (issue 14), each about `size` characters.
// Shared by the panel bench (times in Chromium) and the markdown unit test (a loose bound in Node), so both measure
// the same texts.

/** A word of `n` base64url characters: one token with no space or punctuation for a tokenizer to stop at. */
function word(n: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[(i * 7 + (i >> 3)) % 64];
  return s;
}

function repeatTo(unit: string, size: number): string {
  return unit.repeat(Math.max(1, Math.floor(size / unit.length)));
}

/** Lines made by `line(i)` until the text is about `size` characters (issue 20: long streamed lists and tables). */
function linesTo(size: number, head: string, line: (i: number) => string): string {
  let text = head;
  for (let i = 1; text.length < size; i++) text += line(i);
  return text;
}

export interface PathologicalInput {
  name: string;
  text: string;
}

/** Every input named in issue 14, at about `size` characters (the issue measured 40–50 KB; the target is 100 KB). */
export function pathologicalInputs(size = 100_000): PathologicalInput[] {
  const half = Math.floor(size / 2);
  return [
    {
      name: 'css block, inlined 40 KB base64 payload (the 12 s freeze)',
      text: `Here is the stylesheet:\n\n\`\`\`css\n.logo {\n  background: url(data:image/png;base64,${word(40_000)});\n}\n\`\`\`\n`,
    },
    { name: 'css block, one long word', text: `\`\`\`css\n.a { background: url(${word(size)}) }\n\`\`\`\n` },
    { name: 'html block, one long word', text: `\`\`\`html\n<div>${word(size)}</div>\n\`\`\`\n` },
    { name: 'html block, long unquoted attribute', text: `\`\`\`html\n<div class=${word(size)}>\n\`\`\`\n` },
    { name: 'js block, one long word', text: `\`\`\`js\nconst a = ${word(size)};\n\`\`\`\n` },
    { name: 'css block, 18 KB word (under the highlight limit)', text: `\`\`\`css\n.a { background: url(${word(18_000)}) }\n\`\`\`\n` },
    { name: 'long word in a paragraph', text: word(size) },
    { name: '50,000 [', text: '['.repeat(Math.min(size, 50_000)) },
    { name: `${size.toLocaleString('en-US')} [`, text: '['.repeat(size) },
    { name: 'unclosed link target', text: `[a](${word(size)}` },
    { name: 'many unclosed link targets', text: repeatTo('[a](b ', size) },
    { name: 'heading followed by 50,000 spaces', text: `# Heading${' '.repeat(50_000)}x\n\nafter` },
    { name: 'run of * delimiters', text: '*'.repeat(size) },
    { name: 'run of _ delimiters', text: '_'.repeat(size) },
    { name: 'alternating *a', text: repeatTo('*a', size) },
    { name: 'alternating **a_', text: repeatTo('**a_', size) },
    { name: 'nested emphasis', text: `${'*a _b '.repeat(Math.floor(half / 6))}c${' b_ a*'.repeat(Math.floor(half / 6))}` },
    { name: 'run of backticks', text: repeatTo('`a``', size) },
    { name: 'raw html tags', text: repeatTo('<a href="x" ', size) },
    { name: 'long url', text: `https://example.com/${word(size)}` },
    { name: 'table, 1,000 columns', text: `${'| a '.repeat(1000)}|\n${'|---'.repeat(1000)}|\n${'| 1 '.repeat(1000)}|\n` },
    { name: 'table, 2,000 columns', text: `${'| a '.repeat(2000)}|\n${'|---'.repeat(2000)}|\n${'| 1 '.repeat(2000)}|\n` },
    { name: 'deep block quotes', text: `${'>'.repeat(Math.min(size, 10_000))} x` },
    { name: 'deep lists', text: Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n') },
  ];
}

/**
 * Long lists and tables of short items (issue 20: streamed, each frame re-rendered the whole open block, ~100 ms).
 * Measured by the panel bench next to the inputs above; their cost is markdown-it's own on that much text (linear), so
 * the Node unit test's loose time bound, meant to catch a quadratic path, does not run them.
 */
export function longListInputs(size = 100_000): PathologicalInput[] {
  return [
    { name: 'list, short items', text: linesTo(size, '', (i) => `- item ${i}: check \`h${i}.ts\`\n`) },
    { name: 'numbered list, short items', text: linesTo(size, '', (i) => `${i}. step ${i} **done**\n`) },
    { name: 'task list, short items', text: linesTo(size, '', (i) => `- [${i % 3 ? ' ' : 'x'}] task ${i}\n`) },
    { name: 'nested list, short items', text: linesTo(size, '', (i) => (i % 4 ? `  - sub ${i}\n` : `- item ${i}\n`)) },
    { name: 'loose list, short items', text: linesTo(size, '', (i) => `- item ${i}\n\n`) },
    {
      name: 'table, short rows',
      text: linesTo(size, '| # | name | before | after |\n|--:|:-----|:------:|------|\n', (i) => `| ${i} | h${i} | 500 | 401 |\n`),
    },
  ];
}
