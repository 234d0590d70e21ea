// The README's settings table is the user's reference: it lists every setting package.json contributes, and no other.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

describe('README', () => {
  it('its settings table lists every setting, each with its bound column', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, unknown> } } };
    const settings = Object.keys(pkg.contributes.configuration.properties).sort();
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Settings'), readme.indexOf('## How it is built'));
    assert.match(section, /\| setting +\| default +\| what it does +\| bound +\|/);
    const listed = [...section.matchAll(/^\| `(baton\.[A-Za-z.]+)` /gm)].map((m) => m[1]!).sort();
    assert.deepEqual(listed, settings);
  });
});
