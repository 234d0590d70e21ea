// The shared end-of-test check (test/support/checkAfterTest.ts) fails the test it checked and lets the rest run:
// a failing afterEach hook would make mocha skip every test after it.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import Mocha from 'mocha';

describe('checkAfterTest', () => {
  it('fails the checked test with the check’s error, and the tests after it still run', async () => {
    const mocha = new Mocha({ reporter: function silent() {} as unknown as Mocha.ReporterConstructor });
    const fixture = join(__dirname, 'fixtures', 'checkAfterTest.fixture.ts');
    mocha.addFile(fixture);
    const ran: string[] = [];
    const failed: { title: string; message: string }[] = [];
    const failures = await new Promise<number>((resolve) => {
      const runner = mocha.run(resolve);
      runner.on('test', (test) => ran.push(test.title));
      runner.on('fail', (test, err: Error) => failed.push({ title: test.title, message: err.message }));
    });
    mocha.dispose();
    assert.deepEqual(ran, ['leaves a script unused', 'runs after it', 'runs last']);
    assert.equal(failures, 1);
    assert.deepEqual(failed, [{ title: 'leaves a script unused', message: '1 scripted response left unused' }]);
  });
});
