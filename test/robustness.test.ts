/**
 * Nothing a model, a client or a person sends can break a run (issue #11), on a real dev server:
 * oversized human input is refused without history, a flood of oversized invalid Signals is
 * absorbed by continue-as-new, a reply with 1,000 tool calls completes. Each run ends completed,
 * with no WorkflowTaskFailed event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { scriptStep } from '../testing/script-steps.js';
import { answerClarificationSignal, answerClarificationUpdate, reviewToolCallUpdate, stateQuery } from '../workflows/messages.js';
import { calls } from './fixtures/tools.js';
import { events, awaiting, waitFor } from './support/runs.js';
import { serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
beforeAll(async () => void (w = await startTestWorker()));
afterAll(() => w?.stop());

const MB = 1_000_000;


/**
 * Every run of the chain: no workflow task failed in the worker (the server's own flow control —
 * more than 2 MB of Signals buffered during a task, or a hand-over with Signals pending — fails a
 * task (from `history-service`, or as UNHANDLED_COMMAND) and schedules another, for any workflow); their history sizes in bytes.
 */
async function chain(handle: WorkflowHandle): Promise<number[]> {
  const sizes: number[] = [];
  let runId: string | undefined = (await handle.describe()).runId;
  const seen = new Set<string>();
  // Walk back from the latest run through the continued-as-new links.
  for (let i = 0; runId && i < 100 && !seen.has(runId); i++) {
    seen.add(runId);
    const history = await smallPages(handle.workflowId, runId);
    const failed = history.filter((e) => {
      const f = e.workflowTaskFailedEventAttributes;
      // UNHANDLED_COMMAND: the server refused a completion because Signals arrived during the task.
      return f && f.identity !== 'history-service' && f.cause !== temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND;
    });
    expect(failed, `run ${runId} had a workflow task failed by the worker`).toEqual([]);
    sizes.push(history.reduce((sum, e) => sum + JSON.stringify(e).length, 0));
    runId = history[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return sizes;
}

/** A run's events, read over a connection that takes large messages: a page of a 50 MB history does not fit 4 MB. */
async function smallPages(workflowId: string, runId: string) {
  const connection = await Connection.connect({ address: serverAddress(), channelArgs: { 'grpc.max_receive_message_length': 128 * MB } });
  try {
    return await events(new Client({ connection }).workflow.getHandle(workflowId, runId));
  } finally {
    await connection.close();
  }
}

describe('oversized human input', () => {
  it('a review decision over the size limit is refused by the Update validator, without history', async () => {
    const { model } = w.script([scriptStep.call('issue_refund', { orderId: 'A-7', amount: 60 }), scriptStep.text('Done.')]);
    const handle = await w.start({ agent: 'test', prompt: 'refund A-7', model });
    const [review] = (await awaiting(handle, 'awaiting_review')).reviews;
    const before = (await events(handle)).length;
    const big = 'x'.repeat(MB);
    for (const decision of [{ type: 'respond', content: big }, { type: 'reject', reason: big }, { type: 'edit', args: { orderId: big, amount: 1 } }]) {
      await expect(
        handle.executeUpdate(reviewToolCallUpdate, { args: [{ toolCallId: review!.toolCallId, argsHash: review!.argsHash, decision: decision as never }] }),
      ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/larger than 20000 characters/) } });
    }
    expect((await events(handle)).length).toBe(before);
    await handle.executeUpdate(reviewToolCallUpdate, { args: [{ toolCallId: review!.toolCallId, argsHash: review!.argsHash, decision: { type: 'reject', reason: 'no' } }] });
    expect(await handle.result()).toMatchObject({ answer: 'Done.' });
  });
});

describe('a flood of invalid 1 MB Signals', () => {
  // While Signals keep coming faster than workflow tasks complete, no workflow can continue as new
  // (the server refuses a hand-over with Signals pending): the run hands over as soon as the flood
  // pauses, before Temporal's 50 MB termination, and its next run starts small.
  it('is absorbed: the waiting run hands over once the flood pauses, and completes once answered', { timeout: 180_000 }, async () => {
    const { model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1', window: 'morning' }),
      scriptStep.text('Scheduled.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model });
    const { clarification } = await awaiting(handle, 'awaiting_clarification');
    const garbage = { id: clarification!.id, answer: 'x'.repeat(MB) };
    for (let i = 0; i < 50; i++) await handle.signal(answerClarificationSignal, garbage);
    // A Query fails while the server retries a workflow task it failed for buffered Signals: ask again.
    const state = await waitFor(async () => {
      const s = await handle.query(stateQuery).catch(() => undefined);
      return s?.phase === 'awaiting_clarification' && !s.continuingAsNew && s.generation > 0 ? s : undefined;
    }, 'the question, still open in a new run', 150_000);
    expect(state.generation).toBeGreaterThanOrEqual(1);
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: state.clarification!.id, answer: 'morning' }] });
    expect(await handle.result()).toMatchObject({ answer: 'Scheduled.' });
    const sizes = await chain(handle);
    expect(sizes[0]).toBeLessThan(MB); // the run that finished started afresh
  });
});

describe('a reply with 1,000 tool calls', () => {
  it('runs the first maxCallsPerTurn calls, refuses the rest with a structured error, and completes', async () => {
    const before = calls.lookup_order ?? 0;
    const many = Array.from({ length: 1_000 }, (_, i) => ({ name: 'lookup_order', arguments: { orderId: `A-${1000 + i}` } }));
    const { model, scripted } = w.script([scriptStep.calls(many), scriptStep.text('Looked up the first 32.')]);
    const handle = await w.start({ agent: 'test', prompt: 'look them all up', model, policy: { maxToolCalls: 5_000 } });
    expect(await handle.result()).toMatchObject({ answer: 'Looked up the first 32.' });
    expect((calls.lookup_order ?? 0) - before).toBe(32);
    const results = scripted.requests[1]!.messages.filter((m) => m.role === 'tool') as { content: { error?: { code: string } } }[];
    expect(results).toHaveLength(1_000);
    expect(results.slice(32).every((m) => m.content.error?.code === 'too_many_calls')).toBe(true);
    await chain(handle);
  });
});
