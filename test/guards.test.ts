/**
 * Size, depth and shape guards, heartbeats and cancellation, on a real dev server and worker:
 * oversize tool outputs and model replies, 10,000-deep arguments and shape-breaking model
 * outcomes each end as a completed run with a structured, explained outcome — no failed workflow
 * task, no retried or timed-out activity.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Worker } from '@temporalio/worker';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { scriptStep } from '../testing/script-steps.js';
import { aiSdkModel } from '../activities/model/ai-sdk-model.js';
import type { ModelClient } from '../activities/model/model-client.js';
import { FilePayloadStore } from '../activities/file-payload-store.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { AgentRunInput, AgentRunResult } from '../workflows/contract/index.js';
import type { ProbeInput, ProbeResult } from './fixtures/probe-workflows.js';
import { testAgent } from './fixtures/agents.js';
import { guardCalls, guardsAgent } from './fixtures/guard-tools.js';
import { ChatCompletionsServer, completion } from './support/chat-completions-server.js';
import { events, waitFor, type HistoryEvent } from './support/runs.js';
import { serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';
import { guardsCommand } from '../cli/commands/guards.js';

const MB = 1024 * 1024;
const bigReply = (megabytes: number, char = 'x'): ModelClient => ({
  generate: async () => ({
    status: 'ok',
    response: { text: char.repeat(Math.round(megabytes * MB)), toolCalls: [], finishReason: 'stop' },
  }),
});
const shapeBreaker: ModelClient = {
  // A custom client that hands over parsed arguments instead of JSON text: wedged every workflow task before.
  generate: async () =>
    ({ status: 'ok', response: { text: '', toolCalls: [{ name: 'store_doc', arguments: { doc: 1 } }] } }) as never,
};
const provider = new ChatCompletionsServer();

/** Every event kind that means something went wrong underneath a structured outcome. */
function expectClean(history: HistoryEvent[]): void {
  expect(history.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
  expect(history.filter((e) => e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes)).toEqual(
    [],
  );
  // One attempt per activity: nothing was retried.
  for (const started of history.filter((e) => e.activityTaskStartedEventAttributes))
    expect(started.activityTaskStartedEventAttributes!.attempt).toBe(1);
}

function toolMessages(messages: readonly TranscriptMessage[]): Extract<TranscriptMessage, { role: 'tool' }>[] {
  return messages.filter((m): m is Extract<TranscriptMessage, { role: 'tool' }> => m.role === 'tool');
}

describe('guards on a real worker', () => {
  let w: TestWorker;
  let payloadDirectory: string;
  beforeAll(async () => {
    await provider.start();
    payloadDirectory = await mkdtemp(join(tmpdir(), 'cairn-guards-'));
    const slowProvider = aiSdkModel(
      createOpenAICompatible({ name: 'test', baseURL: provider.url }).chatModel('test-model'),
    );
    w = await startTestWorker({
      agents: [testAgent, guardsAgent],
      models: {
        'reply-3mb': bigReply(3),
        'reply-5mb': bigReply(2.6, 'ü'),
        'shape-breaker': shapeBreaker,
        'slow-provider': slowProvider,
      },
      activityOptions: { toolActivity: { payloadStore: new FilePayloadStore({ directory: payloadDirectory }) } },
    });
  });
  afterAll(async () => {
    await w?.stop();
    await provider.close();
    await rm(payloadDirectory, { recursive: true, force: true });
  });

  /** Starts a run of the `guards` agent (its own workflow type in the test bundle). */
  const start = (input: AgentRunInput) =>
    w.client.workflow.start<(input: AgentRunInput) => Promise<AgentRunResult>>('guardsAgentRun', {
      taskQueue: w.taskQueue,
      workflowId: `guards-${randomUUID()}`,
      args: [input],
      workflowExecutionTimeout: '2m',
    });

  const probe = async (input: ProbeInput): Promise<{ result: ProbeResult; history: HistoryEvent[] }> => {
    const handle = await w.client.workflow.start('activityProbe', {
      taskQueue: w.taskQueue,
      workflowId: `probe-${randomUUID()}`,
      args: [input],
      workflowExecutionTimeout: '1m',
    });
    const result = (await handle.result()) as ProbeResult;
    return { result, history: await events(handle) };
  };

  it("the test worker's workflow sandbox gives an activation 60 s (the SDK's 5 s failed tasks here on a busy machine)", () => {
    expect(w.worker.options.isolateExecutionTimeoutMs).toBe(60_000);
  });

  it.each([3, 10])(
    'a %i MB tool output reaches the model as partial_data with a reference, and the run completes',
    async (megabytes) => {
      const { model, scripted } = w.script([
        scriptStep.call('big_output', { megabytes }),
        scriptStep.text('Summarised.'),
      ]);
      const handle = await start({ agent: 'guards', prompt: 'Fetch the rows.', model });
      expect(await handle.result()).toMatchObject({ answer: 'Summarised.', reason: null });
      const [message] = toolMessages(scripted.requests[1]!.messages);
      expect(message!.content).toMatchObject({
        error: { code: 'partial_data', kind: 'partial_data' },
        partial: { rows: expect.any(Array) },
      });
      expect(JSON.stringify(message!.content)).toMatch(
        /over its limit of 262144; only the start is kept .*read_result/,
      );
      const history = await events(handle);
      expectClean(history);
      const completed = history.filter((e) => e.activityTaskCompletedEventAttributes);
      for (const e of completed)
        expect(e.activityTaskCompletedEventAttributes!.result!.payloads![0]!.data!.length).toBeLessThan(300 * 1024);
    },
  );

  // Two 1.1 MB results once made the transcript read (a Query) pass 2 MB and failed the run; three 1.9 MB ones too.
  it.each([
    [2, 1.1],
    [3, 1.9],
  ])(
    '%i results of %f MB in one run: each kept under the limit, the transcript stays readable, the run completes',
    async (count, megabytes) => {
      // Distinct calls (a repeated one would be escalated as "keeps failing"), all in one turn.
      const calls = Array.from({ length: count }, (_, i) => ({
        name: 'big_output',
        arguments: { megabytes: megabytes + i / 1000 },
      }));
      const { model, scripted } = w.script([scriptStep.calls(calls), scriptStep.text('Summarised.')]);
      const handle = await start({ agent: 'guards', prompt: 'Fetch the rows.', model });
      expect(await handle.result()).toMatchObject({ answer: 'Summarised.', reason: null });
      const results = toolMessages(scripted.requests[1]!.messages);
      expect(results).toHaveLength(count);
      // Each kept as partial_data with a reference, or (older ones, by the context policy) compacted.
      const shown = results.map((r) => r.content as { error?: { code: string }; compacted?: boolean });
      expect(
        shown.every((c) => c.error?.code === 'partial_data' || c.compacted === true),
        JSON.stringify(shown).slice(0, 500),
      ).toBe(true);
      expect(shown.at(-1)!.error?.code).toBe('partial_data');
      // What the model activity read through the transcript Query: well under the 2 MB payload limit.
      expect(JSON.stringify(scripted.requests[1]!.messages).length).toBeLessThan(count * 300 * 1024);
      expectClean(await events(handle));
    },
  );

  it('the model pages through an offloaded result with read_result', async () => {
    const refOf = (messages: readonly TranscriptMessage[]) =>
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(
        JSON.stringify(toolMessages(messages).at(-1)!.content),
      )![0];
    const { model, scripted } = w.script([
      scriptStep.call('big_output', { megabytes: 3 }),
      scriptStep.react(({ messages }) =>
        scriptStep.call('read_result', { ref: refOf(messages), offset: 0, length: 1_000 }),
      ),
      scriptStep.text('Read it.'),
    ]);
    const handle = await start({ agent: 'guards', prompt: 'Fetch and read.', model });
    expect(await handle.result()).toMatchObject({ answer: 'Read it.' });
    const page = toolMessages(scripted.requests[2]!.messages).at(-1)!.content as {
      text: string;
      total: number;
      next: { offset: number };
    };
    expect(page.text).toMatch(/^\{"rows":\[\{"id":0,"text":"r{80}"\}/);
    expect(page.text).toHaveLength(1_000);
    expect(page.total).toBeGreaterThan(2.5 * MB); // characters of the stored JSON text
    expect(page.next.offset).toBe(1_000);
    expectClean(await events(handle));
  });

  it.each([
    ['a 3 MB reply', 'reply-3mb', /the reply is 3\d{6} bytes of JSON .* over the limit of 524288 bytes/],
    ['a 5 MB reply', 'reply-5mb', /the reply is 5\d{6} bytes of JSON .* over the limit of 524288 bytes/],
    ['a shape-breaking reply', 'shape-breaker', /`response\.toolCalls\[0\]\.arguments` is an object, not JSON text/],
  ])('%s from the model client ends the run with the explanation, at once', async (_label, name, message) => {
    // One retry, then the forced final turn: each reply is refused at the boundary, none waits on a timeout.
    const handle = await start({
      agent: 'guards',
      prompt: 'Answer.',
      model: `scripted:${name}`,
      policy: { maxModelRetries: 1 },
    });
    const result = await handle.result();
    expect(result.answer, result.answer).toMatch(message);
    expect(result.reason).toContain('malformed_model_output');
    const history = await events(handle);
    expectClean(history);
    expect(history.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(3);
  });

  it('10,000-deep arguments are refused as invalid_arguments, the model repairs, and the history replays', async () => {
    const deep = `{"doc":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const before = guardCalls.store_doc ?? 0;
    const { model, scripted } = w.script([
      scriptStep.call('store_doc', deep),
      scriptStep.call('store_doc', { doc: [1] }),
      scriptStep.text('Stored.'),
    ]);
    const handle = await start({ agent: 'guards', prompt: 'Store it.', model });
    expect(await handle.result()).toMatchObject({ answer: 'Stored.' });
    const [refused] = toolMessages(scripted.requests[1]!.messages);
    expect(refused!.content).toMatchObject({
      error: { code: 'invalid_arguments', message: expect.stringContaining('nested too deep: more than 64 levels') },
    });
    expect(guardCalls.store_doc).toBe(before + 1);
    expectClean(await events(handle));
    // A fresh worker replays it: nothing recursive ran on the deep value.
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') } },
      await handle.fetchHistory(),
      handle.workflowId,
    );
  });

  it('a shadow output schema lets the result through and records the violation in it', async () => {
    const { model, scripted } = w.script([
      scriptStep.call('shadow_status', { orderId: 'A-7' }),
      scriptStep.text('It is shipping.'),
    ]);
    const handle = await start({ agent: 'guards', prompt: 'Status of A-7?', model });
    expect(await handle.result()).toMatchObject({ answer: 'It is shipping.' });
    expect(toolMessages(scripted.requests[1]!.messages)[0]!.content).toEqual({ orderId: 'A-7', status: 'shipping' });
    const completed = (await events(handle))
      .filter((e) => e.activityTaskCompletedEventAttributes)
      .map(
        (e) =>
          JSON.parse(Buffer.from(e.activityTaskCompletedEventAttributes!.result!.payloads![0]!.data!).toString()) as {
            name?: string;
            shadow?: unknown;
          },
      );
    expect(completed.find((r) => r.name === 'shadow_status')!.shadow).toEqual([
      {
        guard: 'output',
        code: 'output_schema_violation',
        rule: 'invalid_value',
        path: 'status',
        count: 1,
        message: '`status` must be one of placed, shipped, delivered, not "shipping"',
      },
    ]);
  });

  it("cairn guards counts shadow violations per tool, rule and field from the run's recorded results", async () => {
    const { model } = w.script([
      scriptStep.calls([
        { name: 'shadow_status', arguments: { orderId: 'A-7' } },
        { name: 'shadow_status', arguments: { orderId: 'B-7' } },
        { name: 'shadow_status', arguments: { orderId: 'A-1' } },
      ]),
      scriptStep.text('Done.'),
    ]);
    const handle = await start({ agent: 'guards', prompt: 'Statuses?', model });
    await handle.result();
    const out: string[] = [];
    const io = {
      json: true,
      line: () => undefined,
      document: (value: unknown) => void out.push(JSON.stringify(value)),
      error: (text: string) => void out.push(text),
    };
    process.env.TEMPORAL_ADDRESS = serverAddress();
    expect(await guardsCommand.run([handle.workflowId, '--json'], io)).toBe(0);
    expect(JSON.parse(out[0]!)).toEqual({
      workflowId: handle.workflowId,
      runs: 1,
      truncated: false,
      results: 3,
      counts: [
        {
          tool: 'shadow_status',
          guard: 'output',
          code: 'output_schema_violation',
          rule: 'invalid_value',
          path: 'status',
          count: 2,
          calls: 2,
          example: '`status` must be one of placed, shipped, delivered, not "shipping"',
        },
      ],
    });
    const lines: string[] = [];
    expect(
      await guardsCommand.run([handle.workflowId], {
        json: false,
        line: (text) => void lines.push(text),
        document: () => undefined,
        error: (text) => void lines.push(text),
      }),
    ).toBe(0);
    expect(lines[0]).toBe(`Run ${handle.workflowId}: 3 tool result(s) in 1 run(s); 2 with shadow-guard violations.`);
    expect(lines[2]).toMatch(/^count +calls +tool +guard +code +rule +field +example$/);
    expect(lines[3]).toMatch(
      /^2 +2 +shadow_status +output +output_schema_violation +invalid_value +status +`status` must be one of/,
    );
  });

  it('a heartbeating tool outlives a heartbeat timeout shorter than its run', async () => {
    // Heartbeats go out at least every 2 s (the worker's throttle cap), so a 4 s timeout leaves slack on a busy machine.
    const { result, history } = await probe({
      tool: { name: 'sleepy', toolCallId: 'p.1', args: { ms: 9_000 } },
      heartbeatTimeoutMs: 4_000,
    });
    expect(result, JSON.stringify(result)).toMatchObject({
      status: 'completed',
      value: { status: 'ok', result: { slept: 9_000 } },
    });
    expectClean(history);
  });

  it('a cancelled tool call is reported as cancelled (the tool aborts), and recorded as cancelled, not as a failing tool', async () => {
    const aborted = guardCalls.sleepy_aborted ?? 0;
    const { result, history } = await probe({
      tool: { name: 'sleepy', toolCallId: 'p.2', args: { ms: 30_000 } },
      cancelAfterMs: 500,
    });
    expect(result).toMatchObject({
      status: 'failed',
      failure: 'ActivityFailure',
      cause: 'CancelledFailure',
      recorded: { error: { code: 'cancelled' } },
    });
    expect(history.some((e) => e.activityTaskCanceledEventAttributes)).toBe(true);
    expect(guardCalls.sleepy_aborted).toBe(aborted + 1);
  });

  it('a cancelled model call aborts the provider request (AI SDK adapter, real HTTP)', async () => {
    provider.enqueue({ ...completion({ content: 'too late' }), delayMs: 30_000 });
    const { result, history } = await probe({ model: 'scripted:slow-provider', cancelAfterMs: 1_000 });
    expect(result).toMatchObject({ status: 'failed', failure: 'ActivityFailure', cause: 'CancelledFailure' });
    expect(history.some((e) => e.activityTaskCanceledEventAttributes)).toBe(true);
    await waitFor(async () => (provider.aborted === 1 ? true : undefined), 'the provider request to be aborted');
  });
});
