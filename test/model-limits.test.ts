/**
 * A provider's limits and a budget's end, on the real dev server with a real OpenAI-compatible
 * HTTP provider (test/support/chat-completions-server.ts): 429 storms with and without retry-after
 * and 529s are waits that end in answers; a model that 404s, bad and missing credentials and a
 * provider down past the run's patience fail the run with their code; token and cost budgets give a
 * wrap-up turn, end the run, or wait for a person who extends them through the typed client; usage
 * is carried across continue-as-new; flow control through Redis holds calls back before they are
 * sent, and a Redis that goes away mid-run lets the run finish on the 429 path, logged once.
 */
import { randomUUID } from 'node:crypto';
import { createServer, Socket, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { CairnClient, type AgentRunHandle } from '../entry/client.js';
import { createCairnWorker } from '../runtime/worker.js';
import type { ResolveModelOptions } from '../activities/model/resolve-model.js';
import { testAgent } from './fixtures/agents.js';
import type { Agent } from '../shared/agent/define-agent.js';
import { ChatCompletionsServer, completion, errorReply, type CannedReply } from './support/chat-completions-server.js';
import { connectClient, serverAddress } from './support/temporal.js';
import { recordHistory } from './support/histories.js';

const lookup = (id: string): CannedReply =>
  completion({ toolCalls: [{ id: `call_${id}`, name: 'lookup_order', arguments: JSON.stringify({ orderId: id }) }] });
const answer = (text: string): CannedReply => completion({ content: text });
const MODEL = 'openai:test-model';

interface Stack {
  readonly provider: ChatCompletionsServer;
  readonly runs: CairnClient;
  readonly client: Client;
  stop(): Promise<void>;
}

/** A provider and a worker whose `openai:` models call it, with `models` options of its own. */
async function stack(
  models: Omit<ResolveModelOptions, 'env'> = {},
  env: Record<string, string> = { OPENAI_API_KEY: 'sk-test-key' },
  agents: readonly Agent[] = [testAgent],
): Promise<Stack> {
  const provider = await new ChatCompletionsServer().start();
  const client = await connectClient();
  const connection = await NativeConnection.connect({ address: serverAddress() });
  const taskQueue = `test-${randomUUID()}`;
  const worker: Worker = await createCairnWorker({
    connection,
    client,
    taskQueue,
    agents,
    models: { ...models, env: { OPENAI_BASE_URL: provider.url, ...env } },
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  const running = worker.run();
  return {
    provider,
    client,
    runs: new CairnClient({ client, taskQueue }),
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await client.connection.close();
      await provider.close();
    },
  };
}

/** The run's failure (it must fail), and checks that every reader sees the same. */
async function failure(run: AgentRunHandle): Promise<{ type: string; message: string; nonRetryable: boolean }> {
  const error = await run.result().then(
    (result) => expect.unreachable(`the run finished: ${JSON.stringify(result)}`),
    (err: unknown) => err as { name: string; cause: { type: string; message: string; nonRetryable: boolean } },
  );
  expect(error.name).toBe('WorkflowFailedError');
  expect((await run.workflow.describe()).status.name).toBe('FAILED');
  const state = await run.state();
  expect(state.failure?.type).toBe(error.cause.type);
  expect(state.answer).toBeNull();
  return error.cause;
}

const backOffs = async (run: AgentRunHandle) =>
  (await run.state()).steps.filter((s) => s.action === 'back_off').map((s) => s.detail);

describe('a rate limit is a wait, not a failure', () => {
  let s: Stack;
  beforeAll(async () => (s = await stack()));
  afterAll(() => s?.stop());

  it('a 429 storm with retry-after, longer than maxModelRetries: the run waits it out and answers', async () => {
    const storm = Array.from({ length: 5 }, () => errorReply(429, 'Rate limit reached', { 'retry-after-ms': '50' }));
    s.provider.enqueue(...storm, answer('All fine.'));
    const run = await s.runs.start({ agent: 'test', prompt: 'hi', model: MODEL, policy: { maxModelRetries: 1 } });
    const result = await run.result();
    expect(result).toMatchObject({
      answer: 'All fine.',
      reason: null,
      outcome: { status: 'answered' },
      usage: { inputTokens: 11, outputTokens: 7, calls: 1 },
    });
    expect((await backOffs(run)).filter((d) => d.startsWith('model rate-limited'))).toHaveLength(5);
    expect(s.provider.requests).toHaveLength(6);
    await recordHistory(run.workflow, 'model-rate-limit-waits');
  });

  it('a 429 storm without retry-after, and 529 overloaded: waits, then answers', async () => {
    s.provider.enqueue(
      errorReply(429, 'Too many'),
      errorReply(429, 'Too many'),
      errorReply(529, 'Overloaded'),
      errorReply(503, 'busy'),
      answer('Done.'),
    );
    const run = await s.runs.start({ agent: 'test', prompt: 'hi', model: MODEL });
    expect(await run.result()).toMatchObject({ answer: 'Done.', outcome: { status: 'answered' } });
    // The worker may also pace its own calls after the refusals (held, not sent): only the provider's refusals are listed.
    expect((await backOffs(run)).filter((d) => !d.startsWith('model call held'))).toEqual([
      expect.stringMatching(/^model rate-limited/),
      expect.stringMatching(/^model rate-limited/),
      expect.stringMatching(/^model provider overloaded/),
      expect.stringMatching(/^model provider overloaded/),
    ]);
  });

  it('past the patience, the run fails model_unavailable; with onModelFailure: end it completes with that outcome', async () => {
    s.provider.enqueue(
      ...Array.from({ length: 200 }, () => errorReply(429, 'Rate limit reached', { 'retry-after-ms': '100' })),
    );
    const run = await s.runs.start({ agent: 'test', prompt: 'hi', model: MODEL, policy: { modelPatienceMs: 1_000 } });
    const failed = await failure(run);
    expect(failed).toMatchObject({
      type: 'model_unavailable',
      nonRetryable: true,
      message: expect.stringMatching(/^the model provider did not take the call for \d+ s/),
    });
    const soft = await s.runs.start({
      agent: 'test',
      prompt: 'hi',
      model: MODEL,
      policy: { modelPatienceMs: 500, onModelFailure: 'end' },
    });
    const result = await soft.result();
    expect(result.outcome).toMatchObject({ status: 'ended', code: 'model_unavailable' });
    expect((await soft.state()).outcome).toMatchObject({ status: 'ended', code: 'model_unavailable' });
  });
});

describe('a provider nothing listens on', () => {
  it('the run says the cause and when it gives up (state, step log); the worker one line per attempt, no stack', async () => {
    // A port nothing listens on: taken, then let go.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const said: string[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void said.push(args.join(' ')));
    const s = await stack({}, { OPENAI_API_KEY: 'sk-test-key', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` });
    try {
      const run = await s.runs.start({
        agent: 'test',
        prompt: 'hi',
        model: MODEL,
        policy: { modelPatienceMs: 60_000, onModelFailure: 'end' },
      });
      let waits: string[] = [];
      for (const deadline = Date.now() + 90_000; waits.length === 0 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        waits = await backOffs(run).catch(() => []);
      }
      expect(waits[0]).toMatch(
        new RegExp(
          `^model provider unavailable \\(.*ECONNREFUSED 127\\.0\\.0\\.1:${port}\\); the run gives up in \\d+ s`,
        ),
      );
      await run.cancel('seen enough');
      const attempts = said.filter((line) => line.startsWith('cairn: model call '));
      expect(attempts.length).toBeGreaterThanOrEqual(1);
      expect(attempts[0]).toMatch(
        /failed \(attempt 1\): Model provider could not be reached: .*ECONNREFUSED.*; Temporal retries it$/,
      );
      expect(attempts.every((line) => !line.includes('\n'))).toBe(true);
    } finally {
      warn.mockRestore();
      await s.stop();
    }
  }, 120_000);
});

describe('a model that cannot be used fails the run with model_misconfigured', () => {
  let s: Stack;
  beforeAll(async () => (s = await stack()));
  afterAll(() => s?.stop());

  it('an unknown model (404 model_not_found): status Failed, never tool_unavailable, no finish event', async () => {
    s.provider.enqueue(errorReply(404, 'The model `gpt-5-nonexistent` does not exist'));
    const run = await s.runs.start({ agent: 'test', prompt: 'hi', model: 'openai:gpt-5-nonexistent' });
    const failed = await failure(run);
    expect(failed).toMatchObject({
      type: 'model_misconfigured',
      nonRetryable: true,
      message: expect.stringContaining('does not know this model'),
    });
    expect(failed.message).not.toContain('tool_unavailable');
    expect(s.provider.requests).toHaveLength(1);
    await recordHistory(run.workflow, 'model-misconfigured-fails');
    const seen: string[] = [];
    await (async () => {
      for await (const event of run.events()) seen.push(event.type);
    })().catch(() => {});
    expect(seen).not.toContain('finish');
  });

  it('bad credentials (401): Failed, model_misconfigured, the key masked', async () => {
    s.provider.enqueue(errorReply(401, 'Incorrect API key provided: sk-test-key'));
    const run = await s.runs.start({ agent: 'test', prompt: 'hi', model: MODEL });
    const failed = await failure(run);
    expect(failed.type).toBe('model_misconfigured');
    expect(failed.message).not.toContain('sk-test-key');
  });
});

describe('missing credentials', () => {
  it('the worker says so in one line when it starts, and the run fails model_misconfigured naming the variable', async () => {
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
    let s: Stack | undefined;
    try {
      // The same agent as the bundle's, naming its model in its definition.
      s = await stack({}, {}, [{ ...testAgent, model: MODEL }]);
      const model = warnings.filter((w) => w.includes('cannot use its model'));
      expect(model).toEqual([expect.stringContaining('needs OPENAI_API_KEY')]);
      expect(model[0]).not.toContain('\n');
    } finally {
      console.warn = warn;
    }
    try {
      const run = await s.runs.start({ agent: 'test', prompt: 'hi', model: MODEL });
      const failed = await failure(run);
      expect(failed).toMatchObject({ type: 'model_misconfigured', message: expect.stringContaining('OPENAI_API_KEY') });
      expect(s.provider.requests).toHaveLength(0);
    } finally {
      await s.stop();
    }
  });
});

describe('budgets', () => {
  let s: Stack;
  // 11 tokens in and 7 out per call (the provider's usage): 0.018 a call at 1,000 per million.
  beforeAll(async () => (s = await stack({ prices: { openai: { inputPerMillion: 1_000, outputPerMillion: 1_000 } } })));
  afterAll(() => s?.stop());

  it('near the token budget the model is asked for its final answer; the run ends budget_exhausted with it', async () => {
    s.provider.enqueue(lookup('A-1'), answer('What I have: A-1 shipped.'));
    const run = await s.runs.start({
      agent: 'test',
      prompt: 'A-1?',
      model: MODEL,
      policy: { budget: { maxTokens: 30, wrapUpAt: 0.5 } },
    });
    const result = await run.result();
    expect(result).toMatchObject({
      answer: 'What I have: A-1 shipped.',
      outcome: { status: 'ended', code: 'budget_exhausted' },
      usage: { inputTokens: 22, outputTokens: 14, calls: 2 },
    });
    // The wrap-up turn offered no tools.
    const second = s.provider.requests.at(-1)!.body as { tools?: unknown[] };
    expect(second.tools).toBeUndefined();
  });

  it('at the cost budget the run ends budget_exhausted (completed, not answered), the calls not run', async () => {
    s.provider.enqueue(lookup('A-2'));
    const run = await s.runs.start({
      agent: 'test',
      prompt: 'A-2?',
      model: MODEL,
      policy: { budget: { maxCostUsd: 0.01 } },
    });
    const result = await run.result();
    expect(result.outcome).toEqual({
      status: 'ended',
      code: 'budget_exhausted',
      message: 'The run ended: its cost budget is used up (0.018 of 0.01).',
    });
    expect(result.toolCalls).toBe(1);
    expect(result.usage).toMatchObject({ costUsd: 0.018, byModel: { [MODEL]: { costUsd: 0.018, calls: 1 } } });
    expect((await run.workflow.describe()).status.name).toBe('COMPLETED');
  });

  it('onExhausted: ask waits for a person, who extends it through the typed client; bad decisions are refused', async () => {
    s.provider.enqueue(lookup('A-3'), lookup('A-4'), answer('A-3 and A-4 shipped.'));
    const run = await s.runs.start({
      agent: 'test',
      prompt: 'A-3, A-4?',
      model: MODEL,
      policy: { budget: { maxCostUsd: 0.03, onExhausted: 'ask', wrapUpAt: 1 } },
    });
    const idle = await run.untilIdle();
    expect(idle.phase).toBe('awaiting_budget');
    expect(idle.budget).toMatchObject({
      maxCostUsd: 0.03,
      usage: { costUsd: 0.036, calls: 2 },
      pending: { id: 'b1', limit: 'cost', usedCostUsd: 0.036, maxCostUsd: 0.03 },
    });
    // Refused before history: the wrong id, an extension of the wrong limit, a negative amount.
    for (const [decision, id] of [
      [{ type: 'extend', costUsd: 1 }, 'b9'],
      [{ type: 'extend', tokens: 100 }, 'b1'],
      [{ type: 'extend', costUsd: -1 }, 'b1'],
      [{ type: 'more' }, 'b1'],
    ] as const)
      await expect(run.extendBudget(decision as never, id)).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    expect(await run.extendBudget({ type: 'extend', costUsd: 0.05 })).toEqual({ requestId: 'b1' });
    const result = await run.result();
    expect(result).toMatchObject({
      answer: 'A-3 and A-4 shipped.',
      outcome: { status: 'answered' },
      toolCalls: 2,
      usage: { calls: 3, costUsd: 0.054 },
    });
    expect((await run.state()).budget).toMatchObject({
      maxCostUsd: 0.08,
      extended: { costUsd: 0.05, tokens: 0 },
      pending: null,
    });
    await recordHistory(run.workflow, 'budget-extended');
  });

  it('a person may stop the run instead: budget_exhausted', async () => {
    s.provider.enqueue(lookup('A-5'));
    const run = await s.runs.start({
      agent: 'test',
      prompt: 'A-5?',
      model: MODEL,
      policy: { budget: { maxTokens: 10, onExhausted: 'ask' } },
    });
    await run.untilIdle();
    await run.extendBudget({ type: 'stop', reason: 'enough' });
    expect((await run.result()).outcome).toMatchObject({
      status: 'ended',
      code: 'budget_exhausted',
      message: expect.stringContaining('(enough)'),
    });
  });

  it('usage is carried across continue-as-new', async () => {
    s.provider.enqueue(lookup('A-6'), lookup('A-7'), answer('Both shipped.'));
    const run = await s.runs.start({ agent: 'test', prompt: 'A-6, A-7?', model: MODEL, continueAsNewAfterTurns: 1 });
    const result = await run.result();
    expect(result.generation).toBeGreaterThanOrEqual(2);
    expect(result.usage).toMatchObject({ inputTokens: 33, outputTokens: 21, calls: 3, costUsd: 0.054 });
  });
});

describe('flow control through Redis', () => {
  it('holds calls back before they are sent: one call per 3 s across runs, none refused', async () => {
    const prefix = `cairn:test:${randomUUID()}:`;
    const s = await stack({ flowControl: { limits: { openai: { requestsPerMinute: 20 } }, keyPrefix: prefix } });
    try {
      s.provider.enqueue(answer('one'), answer('two'), answer('three'));
      const runs = await Promise.all([1, 2, 3].map(() => s.runs.start({ agent: 'test', prompt: 'hi', model: MODEL })));
      const results = await Promise.all(runs.map((r) => r.result()));
      expect(results.map((r) => r.outcome.status)).toEqual(['answered', 'answered', 'answered']);
      const held = (await Promise.all(runs.map(backOffs))).flat();
      expect(held.filter((d) => d.startsWith('model call held by flow control')).length).toBeGreaterThanOrEqual(1);
      expect(s.provider.requests).toHaveLength(3);
    } finally {
      await s.stop();
    }
  });

  it('Redis gone mid-run: the run goes on unchecked (the 429 path), said once in the log', async () => {
    // A proxy to the real Redis that the test closes between two turns.
    const sockets = new Set<Socket>();
    const proxy: Server = createServer((inbound) => {
      const outbound = new Socket();
      outbound.connect(6379, '127.0.0.1');
      inbound.pipe(outbound).pipe(inbound);
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => sockets.delete(socket));
      }
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as { port: number }).port;
    const logged: string[] = [];
    const s = await stack({
      flowControl: {
        limits: { openai: { requestsPerMinute: 6_000 } },
        url: `redis://127.0.0.1:${port}`,
        keyPrefix: `cairn:test:${randomUUID()}:`,
        log: (m) => logged.push(m),
      },
    });
    // Redis goes away while the first model call is at the provider: its answer comes after, so the
    // next call is the first to find Redis gone (never a race between the test and the run).
    let redisGone!: () => void;
    const gone = new Promise<void>((resolve) => (redisGone = resolve));
    try {
      s.provider.enqueue(
        { ...lookup('A-8'), after: gone },
        errorReply(429, 'slow down', { 'retry-after-ms': '20' }),
        answer('A-8 shipped.'),
      );
      const run = await s.runs.start({ agent: 'test', prompt: 'A-8?', model: MODEL });
      await expect
        .poll(() => s.provider.requests.length, {
          timeout: 30_000,
          message: 'the first model call reached the provider',
        })
        .toBe(1);
      await new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      redisGone();
      // Bounded below the test's timeout, so a run that stalls says where it stands.
      const result = await Promise.race([
        run.result(),
        new Promise<never>((_, reject) =>
          setTimeout(async () => {
            const state = await run.state().catch((err: unknown) => String(err));
            reject(
              new Error(
                `the run did not end: ${JSON.stringify({ state, requests: s.provider.requests.length, logged })}`,
              ),
            );
          }, 40_000).unref(),
        ),
      ]);
      expect(result).toMatchObject({ answer: 'A-8 shipped.', outcome: { status: 'answered' } });
      expect(s.provider.requests).toHaveLength(3);
      expect(logged.filter((m) => m.includes('flow control is off'))).toHaveLength(1);
    } finally {
      redisGone();
      await s.stop();
    }
  }, 90_000);
});
