// Plain-Node checks of what callers outside Baton hand it: the tools' inputs (zod, with the same
// JSON schema package.json declares), worker names made from a task, /remember, and the Chat
// relay that keeps a worker's answer for the next @baton message when no response is open.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatonEvent } from '../../src/core/api/batonEvents';
import { TOOL_INPUTS, parseInput, toolJsonSchema, workerNameFor, type BatonToolName } from '../../src/core/api/apiInputs';
import { ChatRelay, messagesElsewhere, parseRemember, PENDING_CONVERSATIONS, PENDING_PER_CONVERSATION } from '../../src/core/api/chatRelay';
import { prepareTool } from '../../src/core/api/languageModelTools';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import type { LogEntry } from '../../src/core/store/types';
import { Emitter } from '../../src/core/util/emitter';

interface ToolContribution {
  name: string;
  inputSchema: unknown;
  modelDescription: string;
  canBeReferencedInPrompt?: boolean;
  toolReferenceName?: string;
}

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { languageModelTools: ToolContribution[]; chatParticipants: Array<{ id: string; name: string; commands: Array<{ name: string }> }> };
};

describe('Baton API inputs and tools', () => {
  it('package.json declares every tool with the JSON schema of the zod schema that validates it', () => {
    const declared = pkg.contributes.languageModelTools;
    assert.deepEqual(declared.map((t) => t.name).sort(), Object.keys(TOOL_INPUTS).sort());
    for (const tool of declared) {
      assert.deepEqual(tool.inputSchema, toolJsonSchema(tool.name as BatonToolName), `${tool.name}: regenerate its inputSchema from src/core/api/apiInputs.ts`);
      assert.ok(tool.modelDescription.length > 150, `${tool.name} has a precise modelDescription`);
      assert.equal(tool.canBeReferencedInPrompt, true);
    }
    assert.equal(declared.find((t) => t.toolReferenceName === 'baton')?.name, 'baton_ask', '#baton asks the orchestrator');
    const participant = pkg.contributes.chatParticipants[0]!;
    assert.equal(participant.id, 'baton.baton');
    assert.deepEqual(
      participant.commands.map((c) => c.name),
      ['workers', 'remember', 'compact', 'new'],
    );
  });

  it('names every bad field, says what it should be, and refuses unknown fields', () => {
    const check = (name: BatonToolName, raw: unknown) => {
      const r = parseInput(name, TOOL_INPUTS[name], raw);
      return r.ok ? 'ok' : r.error;
    };
    assert.equal(check('baton_delegate', { task: 'x', folder: '/tmp' }), 'ok');
    assert.equal(check('baton_delegate', {}), 'Invalid input for baton_delegate: task: is required; folder: is required.');
    assert.equal(check('baton_delegate', undefined), 'Invalid input for baton_delegate: task: is required; folder: is required.');
    assert.equal(
      check('baton_delegate', { task: '  ', folder: '/tmp', wait: 'yes' }),
      'Invalid input for baton_delegate: task: must not be empty; wait: Invalid input: expected boolean, received string.',
    );
    assert.match(check('baton_delegate', { task: 'x', folder: '/tmp', name: '../etc' }), /name: use 1-48 letters, digits/);
    assert.equal(check('baton_ask', { question: 'hi', model: 'x' }), 'Invalid input for baton_ask: unknown field "model".');
    assert.equal(check('baton_recall', { category: 'secrets' }).startsWith('Invalid input for baton_recall: category: '), true);
    assert.equal(check('baton_recall', { limit: 1.5 }), 'Invalid input for baton_recall: limit: must be a whole number.');
    assert.equal(check('baton_workers', {}), 'ok');
  });

  it('asks to confirm only what starts work, and never for bad input', () => {
    const delegate = prepareTool('baton_delegate', { task: 'Run the tests\nand fix them', folder: '/src/app' });
    assert.equal(delegate.confirmation?.title, 'Start a Baton worker?');
    assert.match(delegate.confirmation!.message, /\*\*\/src\/app\*\*[\s\S]*> Run the tests\n> and fix them/);
    for (const name of ['baton_ask', 'baton_workers', 'baton_recall'] as const) {
      assert.equal(prepareTool(name, name === 'baton_ask' ? { question: 'q' } : {}).confirmation, undefined, name);
    }
    assert.throws(() => prepareTool('baton_delegate', { folder: '/src' }), {
      name: 'BatonError',
      message: 'Invalid input for baton_delegate: task: is required.',
    });
  });

  it('the delegate confirmation says when a worker may run commands unasked, and when the task shown is cut', () => {
    const short = prepareTool('baton_delegate', { task: 'Run the tests', folder: '/src/app' }).confirmation!.message;
    assert.match(short, /asks before running shell commands unless you trusted its folder \(baton\.workers\.trustWorkingDirectory/);
    assert.match(short, /Task:\n\n> Run the tests$/);
    const long = prepareTool('baton_delegate', { task: 'x'.repeat(5000), folder: '/src/app' }).confirmation!.message;
    assert.match(long, /Task \(the first 400 of 5,000 characters\):\n\n> x{400}…$/);
    assert.throws(() => prepareTool('baton_delegate', { task: 'x', folder: 'src/app' }), {
      name: 'BatonError',
      kind: 'worker',
      message: "folder must be an absolute path (or start with ~): 'src/app'.",
    });
    assert.doesNotThrow(() => prepareTool('baton_delegate', { task: 'x', folder: '~/app' }));
  });

  it('makes a worker name from the task, unique among the taken ones', () => {
    assert.equal(workerNameFor('Add a unit test for utils.ts, please', new Set()), 'add-a-unit-test');
    assert.equal(workerNameFor('Add a unit test', new Set(['add-a-unit-test', 'add-a-unit-test-2'])), 'add-a-unit-test-3');
    assert.equal(workerNameFor('!!!', new Set()), 'task');
  });

  it('/remember: a known category prefix, else a fact; empty is explained', () => {
    assert.deepEqual(parseRemember('preference: tabs over spaces'), { category: 'preference', content: 'tabs over spaces' });
    assert.deepEqual(parseRemember('Note: the CI runs at 3am'), { category: 'fact', content: 'Note: the CI runs at 3am' });
    assert.match((parseRemember('  ') as { error: string }).error, /Say what to remember/);
  });

  it('counts the messages that came from elsewhere since the last @baton one', () => {
    const row = (id: number, role: LogEntry['role'], source: string): LogEntry =>
      ({ id, role, source, content: '', status: 'complete', ts: '', meta: null }) as unknown as LogEntry;
    assert.deepEqual(messagesElsewhere([row(1, 'user', 'panel')]), { count: 0, channels: [] }, 'Chat never spoke');
    assert.deepEqual(
      messagesElsewhere([row(1, 'user', 'chat'), row(2, 'assistant', 'chat'), row(3, 'user', 'panel'), row(4, 'user', 'api'), row(5, 'user', 'panel')]),
      { count: 3, channels: ['panel', 'api'] },
    );
    assert.deepEqual(messagesElsewhere([row(1, 'user', 'panel'), row(2, 'user', 'chat')]), { count: 0, channels: [] });
  });

  it('relays the answer to a chat-started worker to the response that follows it, or keeps it for the next one', () => {
    const events = new Emitter<BatonEvent>();
    const relay = new ChatRelay({ onEvent: events.event }, { onEvent: new Emitter<OrchestratorEvent>().event });
    const answer = (worker: string, turnId: string, text: string, conversation = 'main') => {
      events.fire({
        type: 'turn.starting',
        turnId,
        conversation,
        origin: { channel: 'background', worker, replyTo: 'chat' },
        prompt: '[Background task completed]',
      });
      events.fire({ type: 'turn.streaming', turnId, conversation, delta: text, text });
      events.fire({
        type: 'turn.completed',
        turnId,
        conversation,
        origin: { channel: 'background', worker, replyTo: 'chat' },
        text,
        status: 'complete',
        model: 'm',
      });
    };
    const seen: string[] = [];
    const letGo = relay.claim(['a'], { on: (e, w) => seen.push(`${w} ${e.type}`), ended: (w, end) => seen.push(`${w} ended ${end.kind}`) });
    answer('a', 't1', 'A is done');
    assert.deepEqual(seen, ['a turn.starting', 'a turn.streaming', 'a turn.completed', 'a ended answered']);
    letGo();
    answer('b', 't2', 'B is done');
    // A panel-started worker's answer is the panel's only.
    events.fire({ type: 'turn.starting', turnId: 't3', conversation: 'main', origin: { channel: 'background', worker: 'c', replyTo: 'panel' }, prompt: '' });
    events.fire({
      type: 'turn.completed',
      turnId: 't3',
      conversation: 'main',
      origin: { channel: 'background', worker: 'c', replyTo: 'panel' },
      text: 'C',
      status: 'complete',
      model: 'm',
    });
    // Another chat's worker: its answer waits for that chat, never shows in this one.
    answer('d', 't4', 'D is done', 'chat-2');
    assert.deepEqual(relay.takePending('main'), [{ worker: 'b', text: 'B is done' }]);
    assert.deepEqual(relay.takePending('main'), [], 'taken once');
    assert.deepEqual(relay.takePending('chat-2'), [{ worker: 'd', text: 'D is done' }]);

    // Bounded: the newest answers of each of the conversations they last came to.
    for (let i = 0; i < PENDING_PER_CONVERSATION + 5; i++) answer(`w${i}`, `m${i}`, `W${i}`);
    assert.deepEqual(
      relay.takePending('main').map((a) => a.text),
      Array.from({ length: PENDING_PER_CONVERSATION }, (_, i) => `W${i + 5}`),
    );
    for (let c = 0; c <= PENDING_CONVERSATIONS; c++) answer('x', `c${c}`, `X${c}`, `chat-${c}`);
    assert.deepEqual(relay.takePending('chat-0'), [], 'the conversation answered longest ago went');
    assert.deepEqual(relay.takePending('chat-1'), [{ worker: 'x', text: 'X1' }]);
    relay.dispose();
  });
});
