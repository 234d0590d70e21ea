// What the orchestrator's model is told of the date: the user's own (their time zone) in the system message when a
// session opens, and, by the runtime itself, the current time on every message, so a session open since before
// midnight (VS Code left open overnight) knows the new day without Baton adding anything.
import * as assert from 'node:assert/strict';
import { afterEachCore } from '../support/afterEachCore';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { useTimeZone } from '../support/timeZone';

describe("The user's date, told to the model (real runtime, scripted model)", function () {
  this.timeout(60_000);
  let core: CoreFixture;
  const setTimeZone = useTimeZone();

  beforeEach(async () => {
    // Samoa time, a long way from UTC: the date given is the user's.
    setTimeZone('Pacific/Pago_Pago');
    core = await startCore();
  });
  afterEachCore(() => core);

  it("gives the user's date in the system message; the runtime stamps every message with the current time", async () => {
    core.server.on({ lastUserIncludes: '[via panel] first' }, { text: 'one' });
    core.server.on({ lastUserIncludes: '[via panel] second' }, { text: 'two' });
    const now = new Date();
    const weekday = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][now.getDay()];
    const local = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')} (${weekday})`;
    await core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    await core.orchestrator.enqueue('second', { channel: 'panel' }).done;
    const [first, second] = core.server.chatRequests();
    assert.match(first!.systemText, new RegExp(`Current date: ${local.replace(/[()]/g, '\\$&')}, \\d\\d:\\d\\d local time \\(UTC-11:00\\)\\.`));
    for (const r of [first!, second!]) assert.match(r.lastUserText ?? '', /<current_datetime>\d{4}-\d\d-\d\dT\d\d:\d\d[^<]*<\/current_datetime>/);
  });
});
