import * as assert from 'node:assert/strict';
import { classifyError, isRetryable, SessionFailure, toReadableError, TurnCancelledError } from '../../src/core/copilot/errors';

describe('error classification', () => {
  it('tells connection errors from session errors', () => {
    for (const m of ['write EPIPE', 'read ECONNRESET', 'connect ECONNREFUSED 127.0.0.1:1', 'Copilot runtime connection closed', 'spawn copilot ENOENT']) {
      assert.equal(classifyError(new Error(m)), 'connection', m);
    }
    for (const m of ['Session not found: abc', 'session expired', 'Session abc is closed']) {
      assert.equal(classifyError(new Error(m)), 'session', m);
    }
  });

  it('fails at once on auth, bad requests and cancellation', () => {
    assert.equal(classifyError(new SessionFailure('Forbidden', 'api_error', 403)), 'auth');
    assert.equal(classifyError(new SessionFailure('Bad request', 'api_error', 400)), 'fatal');
    assert.equal(classifyError(new TurnCancelledError()), 'cancelled');
    assert.equal(isRetryable('auth'), false);
    assert.equal(isRetryable('fatal'), false);
    assert.equal(isRetryable('connection'), true);
    assert.equal(classifyError(new SessionFailure('Too many requests', 'rate_limit', 429)), 'transient');
  });

  it('writes a readable message with an action and no stack trace', () => {
    const err = new SessionFailure('Unauthorized: token expired\n    at foo (bar.js:1:1)', 'authentication', 401);
    const r = toReadableError(err, 'copilot');
    assert.match(r.message, /^Sorry, I hit an error: /);
    assert.match(r.message, /Sign in/);
    assert.doesNotMatch(r.message, /bar\.js/);
    assert.equal(r.action?.command, 'baton.setProviderKey');
    const byok = toReadableError(err, 'openai');
    assert.match(byok.message, /openai provider rejected the API key/);
  });
});
