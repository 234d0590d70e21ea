// @baton's response waits for the answers to the workers its message started, and that wait always ends with a line
// for the user: when Baton's answer to a worker's result fails, and when the orchestrator stops the worker itself (no
// result comes then). The REAL runtime and the production wiring; the response followed as chatParticipant.ts does,
// through ChatRelay.
import * as assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BatonEvent } from '../../src/core/api/batonEvents';
import { answerEndNote, ChatRelay, type AnswerEnd } from '../../src/core/api/chatRelay';
import { afterEachCore } from '../support/afterEachCore';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';

/** What a response saw of its workers' answers, and how each wait ended. */
interface Followed {
  said: string[];
  ends: Array<[string, AnswerEnd]>;
  /** Settles when every worker the message started has had its wait end. */
  done: () => Promise<void>;
}

describe('@baton waits for its workers\u2019 answers, and the wait always ends (real runtime)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let relay: ChatRelay;
  let project: string;

  beforeEach(async () => {
    core = await startCore();
    relay = new ChatRelay(core.access.events, core.conversations);
    project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
  });

  afterEachCore(() => core, { beforeDispose: () => relay.dispose() });

  /** Sends `text` as @baton does and follows each worker it starts, as the Chat response does. */
  const askInChat = async (text: string): Promise<Followed> => {
    const followed: Followed = { said: [], ends: [], done: () => Promise.resolve() };
    const waits: Array<Promise<void>> = [];
    await core.access.ask(text, 'chat', {
      conversation: 'chat-waits',
      on: (e: BatonEvent) => {
        if (e.type !== 'worker.started') return;
        waits.push(
          new Promise<void>((resolve) =>
            relay.claim([e.worker], {
              on: (a, w) => {
                if (a.type === 'turn.starting') followed.said.push(`Worker '${w}' finished.`);
              },
              ended: (w, end) => {
                followed.ends.push([w, end]);
                followed.said.push(answerEndNote(w, end).trim());
                resolve();
              },
            }),
          ),
        );
      },
    });
    followed.done = async () => {
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the response still waits for its workers')), 20_000)));
      await Promise.race([Promise.all(waits), stuck]).finally(() => clearTimeout(timer));
    };
    return followed;
  };

  it('Baton\u2019s answer to a worker\u2019s result fails: the response ends, saying why', async () => {
    core.server.on(
      { lastUserIncludes: '[via chat] CHECK-IT', afterToolResult: false },
      { toolCalls: [{ name: 'create_worker_session', arguments: { name: 'checker', working_dir: project, initial_prompt: 'TASK-checker' } }] },
    );
    core.server.on({ lastUserIncludes: '[via chat] CHECK-IT', afterToolResult: true }, { text: 'Started checker.' });
    core.server.on({ systemIncludes: "You are 'checker'", lastUserIncludes: 'TASK-checker' }, { text: 'Everything checks out.' });
    core.server.on(
      { lastUserIncludes: "[Background task completed] Worker 'checker'" },
      { error: 400, body: { error: { message: 'bad request from the model' } } },
    );
    const followed = await askInChat('CHECK-IT check the project');
    await followed.done();
    assert.deepEqual(
      followed.ends.map(([w, end]) => [w, end.kind]),
      [['checker', 'failed']],
    );
    assert.equal(followed.said.length, 2);
    assert.equal(followed.said[0], "Worker 'checker' finished.");
    assert.match(followed.said[1]!, /^\*\*Baton could not answer worker 'checker'\u2019s result:\*\* .*bad request from the model/);
  });

  it('the orchestrator stops the worker itself: no result comes, and the response ends saying it was stopped', async () => {
    const workerAsked = core.server.waitForRequests(1, 30_000, (r) => r.systemText.includes("You are 'slow'"));
    core.server.on(
      { lastUserIncludes: '[via chat] START-AND-STOP', afterToolResult: false },
      { toolCalls: [{ name: 'create_worker_session', arguments: { name: 'slow', working_dir: project, initial_prompt: 'TASK-slow' } }] },
    );
    core.server.on(
      { lastUserIncludes: '[via chat] START-AND-STOP', afterToolResult: true },
      // Stopped once it is at work (its model asked), so its request is part of the script either way.
      { toolCalls: [{ name: 'kill_session', arguments: { name: 'slow' } }], after: workerAsked },
      { text: 'Started slow, then stopped it: not needed after all.' },
    );
    core.server.on({ systemIncludes: "You are 'slow'", lastUserIncludes: 'TASK-slow' }, { hang: true });
    const followed = await askInChat('START-AND-STOP start slow and stop it');
    await followed.done();
    assert.deepEqual(followed.ends, [['slow', { kind: 'unanswered', state: 'killed' }]]);
    assert.deepEqual(followed.said, ["---\n\n**Worker 'slow' was stopped by Baton** before it finished; no answer follows. Its transcript keeps what it did."]);
    assert.equal(core.server.chatRequests().filter((r) => r.lastUserText?.includes("[Background task completed] Worker 'slow'")).length, 0);
  });
});
