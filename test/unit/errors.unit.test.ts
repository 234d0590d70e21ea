import * as assert from 'node:assert/strict';
import { ConnectionError, ResponseError } from 'vscode-jsonrpc/node.js';
import {
  AgentError,
  classifyError,
  isRetryable,
  kindOfSessionError,
  toReadableError,
  TurnCancelledError,
  TurnTimeoutError,
} from '../../src/core/copilot/errors';
import { fromSdkError } from '../../src/core/copilot/sdkErrors';

describe('error classification', () => {
  it('types what the SDK throws by its class and the operation, not by its text', () => {
    assert.equal(classifyError(fromSdkError(new ConnectionError(1, 'Connection is closed.'), 'send')), 'connection');
    assert.equal(classifyError(fromSdkError(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), 'call')), 'connection');
    assert.equal(classifyError(fromSdkError(new Error('spawn failed'), 'start')), 'connection');
    assert.equal(classifyError(fromSdkError(new ResponseError(-32603, 'Session not found: abc'), 'resume')), 'session');
    assert.equal(classifyError(fromSdkError(new ResponseError(-32603, 'bad config'), 'create')), 'fatal');
    // A message that merely mentions a session or a connection is not read as one.
    assert.equal(classifyError(fromSdkError(new Error('Session not found; connection closed; 503'), 'call')), 'fatal');
  });

  it('reads session.error events from their errorType and status code', () => {
    assert.equal(kindOfSessionError('api_error', 403), 'auth');
    assert.equal(kindOfSessionError('authentication', undefined), 'auth');
    assert.equal(kindOfSessionError('api_error', 400), 'fatal');
    assert.equal(kindOfSessionError('rate_limit', 429), 'transient');
    assert.equal(kindOfSessionError('api_error', 503), 'transient');
    // The runtime reports a missing sign-in as a plain query error: fatal here, refined by the auth status.
    assert.equal(kindOfSessionError('query', undefined), 'fatal');
  });

  it('fails at once on auth, bad requests and cancellation', () => {
    assert.equal(classifyError(new AgentError('auth', 'Forbidden')), 'auth');
    assert.equal(classifyError(new TurnCancelledError()), 'cancelled');
    assert.equal(classifyError(new TurnTimeoutError(1000)), 'transient');
    assert.equal(classifyError(new Error('Session expired, ECONNRESET')), 'fatal');
    assert.equal(isRetryable('auth'), false);
    assert.equal(isRetryable('fatal'), false);
    assert.equal(isRetryable('connection'), true);
  });

  it('writes a readable message with an action and no stack trace', () => {
    const err = new AgentError('auth', 'Unauthorized: token expired\n    at foo (bar.js:1:1)', { statusCode: 401 });
    const r = toReadableError(err, 'copilot');
    assert.match(r.message, /^Sorry, I hit an error: /);
    assert.match(r.message, /sign in/);
    assert.doesNotMatch(r.message, /bar\.js/);
    assert.equal(r.action?.command, 'baton.signIn');
    const byok = toReadableError(err, 'openai');
    assert.match(byok.message, /openai provider rejected the API key/);
    assert.equal(byok.action?.command, 'baton.setProviderKey');
  });
});
