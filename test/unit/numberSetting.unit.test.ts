// The one reader of numeric settings: a bad value reads as the default and is named; package.json declares the
// bounds the settings UI and Baton both hold each numeric setting to.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { numberSchemas, readNumberSetting, type NumberSchema } from '../../src/core/util/numberSetting';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { type?: unknown; properties?: Record<string, { type?: unknown }> }> } };
};
const properties = pkg.contributes.configuration.properties;
const workersMax: NumberSchema = { type: 'integer', default: 5, minimum: 1, maximum: 20 };

describe('numeric settings', () => {
  it('a value within its bounds is used as set; one not set reads as the default, with no problem', () => {
    assert.deepEqual(readNumberSetting('baton.workers.max', 8, workersMax), { value: 8 });
    assert.deepEqual(readNumberSetting('baton.workers.max', 20, workersMax), { value: 20 });
    assert.deepEqual(readNumberSetting('baton.workers.max', undefined, workersMax), { value: 5 });
  });

  it('a value that is not a number, not whole, or out of range reads as the default and says why', () => {
    const cases: [unknown, string][] = [
      ['lots', 'baton.workers.max is "lots", but it must be a whole number from 1 to 20. Baton uses the default, 5, until it is fixed.'],
      ['8', 'baton.workers.max is "8", but it must be a whole number from 1 to 20. Baton uses the default, 5, until it is fixed.'],
      [2.5, 'baton.workers.max is 2.5, but it must be a whole number from 1 to 20. Baton uses the default, 5, until it is fixed.'],
      [0, 'baton.workers.max is 0, but it must be a whole number from 1 to 20. Baton uses the default, 5, until it is fixed.'],
      [21, 'baton.workers.max is 21, but it must be a whole number from 1 to 20. Baton uses the default, 5, until it is fixed.'],
      [true, 'baton.workers.max is true, but it must be a whole number from 1 to 20. Baton uses the default, 5, until it is fixed.'],
    ];
    for (const [raw, problem] of cases) assert.deepEqual(readNumberSetting('baton.workers.max', raw, workersMax), { value: 5, problem });
    const growth: NumberSchema = { type: 'number', default: 1.2, minimum: 0, maximum: 10 };
    assert.deepEqual(readNumberSetting('baton.runtime.restartAtGrowth', 1.5, growth), { value: 1.5 });
    assert.deepEqual(readNumberSetting('baton.runtime.restartAtGrowth', -1, growth), {
      value: 1.2,
      problem: 'baton.runtime.restartAtGrowth is -1, but it must be a number from 0 to 10. Baton uses the default, 1.2, until it is fixed.',
    });
  });

  it('package.json declares a type, a minimum and a maximum for every numeric setting, and its default within them', () => {
    const schemas = numberSchemas(properties);
    const numeric = Object.entries(properties).flatMap(([name, p]) => [
      ...(p.type === 'number' || p.type === 'integer' ? [name] : []),
      ...Object.entries(p.properties ?? {})
        .filter(([, f]) => f.type === 'number' || f.type === 'integer')
        .map(([field]) => `${name}.${field}`),
    ]);
    assert.deepEqual([...schemas.keys()].sort(), numeric.sort());
    assert.deepEqual([...schemas.keys()].sort(), [
      'baton.conversation.summarize.afterTurns',
      'baton.conversation.summarize.keep',
      'baton.runtime.restartAfterSessions',
      'baton.runtime.restartAtGrowth',
      'baton.turnTimeoutMs',
      'baton.workers.max',
      'baton.workers.timeoutMs',
    ]);
    for (const [name, schema] of schemas) {
      assert.equal(typeof schema.minimum, 'number', `${name} declares a minimum`);
      assert.equal(typeof schema.maximum, 'number', `${name} declares a maximum`);
      assert.deepEqual(readNumberSetting(name, schema.default, schema), { value: schema.default }, `${name}'s default is within its bounds`);
    }
    assert.deepEqual(schemas.get('baton.conversation.summarize.keep'), { type: 'integer', default: 8, minimum: 1, maximum: 200 });
  });
});
