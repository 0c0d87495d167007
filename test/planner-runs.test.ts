/**
 * The planner acting on hints, end to end on a real dev server with scripted models: repair,
 * back-off without a model turn, disabled tools, blocked calls, the 17-retries trace, caps, and
 * every failure kind (including a worker-side crash and a timeout) ending in a completed run.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repairLastCalls } from '../testing/script-repairs.js';
import { scriptStep, type ScriptedCall } from '../testing/script-steps.js';
import { stateQuery, type AgentRunInput, type AgentRunResult } from '../workflows/contract/index.js';
import { calls } from './fixtures/tools.js';
import { hangAgent, hangs } from './fixtures/hang-agent.js';
import { recordHistory } from './support/histories.js';
import { events, scheduled, timers } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
beforeAll(async () => void (w = await startTestWorker()));
afterAll(() => w?.stop());

const toolMessages = (scripted: { requests: readonly { messages: readonly { role: string }[] }[] }, turn: number) =>
  scripted.requests[turn]!.messages.filter((m) => m.role === 'tool') as unknown as {
    name: string;
    content: Record<string, any>;
  }[];

describe('acting on hints', () => {
  it('repairs invalid arguments without running the tool, restricted to it', async () => {
    const before = calls.search_orders ?? 0;
    const { model, scripted } = w.script([
      scriptStep.call('search_orders', { status: 'shipping' }),
      repairLastCalls(),
      scriptStep.react(() => scriptStep.call('search_orders', { status: 'shipped', page: 2 })),
      scriptStep.text('Found them.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'shipped orders?', model });
    expect((await handle.result()).answer).toBe('Found them.');

    const history = await events(handle);
    // The invalid call cost no activity: model, (no tool), model, tool, model, tool, model.
    expect(scheduled(history)).toEqual(['callModel', 'callModel', 'runTool', 'callModel', 'runTool', 'callModel']);
    expect(calls.search_orders).toBe(before + 2);
    const [error] = toolMessages(scripted, 1);
    expect(error!.content.error).toMatchObject({ code: 'invalid_arguments', kind: 'invalid_input' });
    expect(error!.content.hint.issues[0].allowed).toEqual(['placed', 'shipped', 'delivered', 'cancelled']);
    expect(scripted.requests[1]!.toolChoice).toEqual({ tool: 'search_orders' });
    // Page 1 was partial: the hint carried the next page, and the data that came was kept.
    const [partial] = toolMessages(scripted, 2).slice(-1);
    expect(partial!.content).toMatchObject({ error: { code: 'partial_data' }, hint: { nextInput: { page: 2 } } });
    await recordHistory(handle, 'repair-invalid-arguments');
  });

  it('backs off a rate-limited tool on durable timers, without a model turn', async () => {
    calls.track_shipment = 0;
    const { model, scripted } = w.script([
      scriptStep.call('track_shipment', { orderId: 'A-1' }),
      scriptStep.text('On its way.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'track A-1', model });
    expect((await handle.result()).answer).toBe('On its way.');
    const history = await events(handle);
    expect(scheduled(history)).toEqual(['callModel', 'runTool', 'runTool', 'runTool', 'callModel']);
    expect(timers(history)).toEqual([
      expect.stringMatching(/back-off for track_shipment: rate limited/),
      expect.stringMatching(/back-off/),
    ]);
    expect(toolMessages(scripted, 1)[0]!.content).toEqual({ orderId: 'A-1', where: 'Lyon hub' });
    await recordHistory(handle, 'backoff-rate-limited');
  });

  it('disables an unavailable tool and tells the model', async () => {
    const { model, scripted } = w.script([scriptStep.call('carrier_status', {}), scriptStep.text('Carrier is down.')]);
    const handle = await w.start({ agent: 'test', prompt: 'carrier?', model });
    await handle.result();
    const second = scripted.requests[1]!;
    expect(second.tools.map((t) => t.name)).not.toContain('carrier_status');
    expect(second.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('carrier_status is unavailable'),
    });
    expect((await handle.query(stateQuery)).disabledTools).toEqual(['carrier_status']);
  });

  it('stops the seed trace: truncated JSON retried 17 times runs once, then escalates', async () => {
    const before = calls.broken_feed ?? 0;
    const same = scriptStep.call('broken_feed', { since: '2026-01-01' });
    const { model } = w.script([
      ...Array.from({ length: 17 }, () => same),
      scriptStep.text('The feed is broken; I cannot read it.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'read the feed', model, policy: { onLoop: 'finalize' } });
    const result = await handle.result();
    expect(calls.broken_feed).toBe(before + 1);
    expect(result.reason).toMatch(/broken_feed keeps failing/);
    expect(result.turns).toBeLessThanOrEqual(4);
    expect(scheduled(await events(handle)).filter((t) => t === 'runTool')).toHaveLength(1);
    await recordHistory(handle, 'seed-17-retries');
  });
});

describe('every failure kind completes the run', () => {
  it.each([
    ['crashy', 'internal_error', {}],
    ['slow', 'timeout', {}],
    ['broken_feed', 'output_not_json', { since: '2026-02-01' }],
    ['find_book', 'validator_failed', { title: 'Dune Messiah' }],
    ['lookup_order', 'invalid_arguments', { orderId: 'nope' }],
    ['no_such_tool', 'unknown_tool', {}],
  ])('%s → %s', async (name, code, args) => {
    const { model, scripted } = w.script([scriptStep.call(name, args), scriptStep.text('done')]);
    const handle = await w.start({ agent: 'test', prompt: 'go', model, policy: { retryBudgetPerTurn: 1 } });
    expect(await handle.result()).toMatchObject({ answer: 'done' });
    expect(toolMessages(scripted, 1)[0]!.content.error.code).toBe(code);
  });

  it('a parallel batch with a crash, a timeout and a success: each call gets its own result, in call order', async () => {
    const batch: ScriptedCall[] = [
      { name: 'crashy', arguments: {} },
      { name: 'slow', arguments: {} },
      { name: 'lookup_order', arguments: { orderId: 'A-1001' } },
    ];
    const { model, scripted } = w.script([scriptStep.calls(batch), scriptStep.text('done')]);
    const handle = await w.start({ agent: 'test', prompt: 'go', model, policy: { retryBudgetPerTurn: 1 } });
    expect(await handle.result()).toMatchObject({ answer: 'done' });
    const results = toolMessages(scripted, 1);
    expect(results.map((m) => [m.name, m.content.error?.code ?? 'ok'])).toEqual([
      ['crashy', 'internal_error'],
      ['slow', 'timeout'],
      ['lookup_order', 'ok'],
    ]);
    const history = await handle.fetchHistory();
    const ids = history.events!.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityId] : [],
    );
    expect(ids).toEqual(['model:1:1', 'tool:1.1:crashy:1', 'tool:1.2:slow:1', 'tool:1.3:lookup_order:1', 'model:2:1']);
    expect(history.events!.some((e) => e.activityTaskFailedEventAttributes)).toBe(true);
    expect(history.events!.some((e) => e.activityTaskTimedOutEventAttributes)).toBe(true);
    await recordHistory(handle, 'parallel-batch-failed-and-timed-out');
  });

  it('malformed tool-call JSON from the model is a structured error, not a crashed turn', async () => {
    const { model, scripted } = w.script([scriptStep.call('lookup_order', '{"orderId": "A-1'), scriptStep.text('ok')]);
    const handle = await w.start({ agent: 'test', prompt: 'go', model });
    await handle.result();
    expect(toolMessages(scripted, 1)[0]!.content.error.code).toBe('malformed_arguments');
  });
});

describe('caps', () => {
  it('max tool calls: a batch crossing the cap is refused whole, then a final turn', async () => {
    const { model, scripted } = w.script([
      scriptStep.calls([
        { name: 'lookup_order', arguments: { orderId: 'A-1' } },
        { name: 'lookup_order', arguments: { orderId: 'A-2' } },
      ]),
      scriptStep.text('Could not look them up.'),
    ]);
    const before = calls.lookup_order ?? 0;
    const handle = await w.start({ agent: 'test', prompt: 'go', model, policy: { maxToolCalls: 1 } });
    const result = await handle.result();
    expect(calls.lookup_order ?? 0).toBe(before);
    expect(result.reason).toMatch(/tool call cap/);
    expect(scripted.requests[1]!.toolChoice).toBe('none');
  });

  it('max turns forces a final turn with the reason', async () => {
    const again = scriptStep.call('lookup_order', { orderId: 'A-1' });
    const { model } = w.script([again, again, scriptStep.text('Stopping here.')]);
    const result = await (await w.start({ agent: 'test', prompt: 'go', model, policy: { maxTurns: 2 } })).result();
    expect(result).toMatchObject({ answer: 'Stopping here.', reason: expect.stringMatching(/max turns/) });
  });

  it('consecutive failed batches force a final turn', async () => {
    const bad = scriptStep.call('lookup_order', { orderId: 'bad' });
    const { model } = w.script([bad, bad, scriptStep.text('Giving up.')]);
    const result = await (
      await w.start({
        agent: 'test',
        prompt: 'go',
        model,
        policy: { maxConsecutiveFailedBatches: 2, maxRepairsPerTool: 9 },
      })
    ).result();
    expect(result.reason).toMatch(/2 tool batches in a row failed/);
  });
});

describe('a tool that never returns, with default retries', () => {
  it("is a structured timeout after the planner's three runs, each one attempt (Temporal does not retry a hang)", async () => {
    const hw = await startTestWorker({ agents: [hangAgent] });
    try {
      const { model, scripted } = hw.script([scriptStep.call('hang', {}), scriptStep.text('It did not answer.')]);
      const handle = await hw.client.workflow.start<(input: AgentRunInput) => Promise<AgentRunResult>>('hangAgentRun', {
        taskQueue: hw.taskQueue,
        workflowId: `hang-${randomUUID()}`,
        args: [{ agent: 'hang', prompt: 'Call hang.', model }],
        workflowExecutionTimeout: '2m',
      });
      expect((await handle.result()).answer).toBe('It did not answer.');
      const seen = scripted.requests[1]!.messages.findLast((m) => m.role === 'tool') as {
        content: { error?: { code: string } };
      };
      expect(seen.content.error?.code).toBe('timeout');
      // Three runs with back-offs between them (the planner's), one attempt each: not 3 × 3.
      expect(scheduled(await events(handle)).filter((type) => type === 'runTool')).toHaveLength(3);
      expect(timers(await events(handle))).toHaveLength(2);
      expect(hangs.attempts).toBe(3);
    } finally {
      await hw.stop();
    }
  });
});
