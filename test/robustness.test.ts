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
import {
  answerClarificationSignal,
  answerClarificationUpdate,
  reviewToolCallUpdate,
  stateQuery,
} from '../workflows/contract/index.js';
import { calls } from './fixtures/tools.js';
import { events, awaiting, waitFor } from './support/runs.js';
import { serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';
import { MAX_SIGNALS_PER_RUN } from '../runtime/embedded-server.js';
import { HAND_OVER_AFTER_SIGNALS } from '../workflows/run-inbox.js';

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
      return (
        f &&
        f.identity !== 'history-service' &&
        f.cause !== temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND
      );
    });
    expect(failed, `run ${runId} had a workflow task failed by the worker`).toEqual([]);
    sizes.push(history.reduce((sum, e) => sum + JSON.stringify(e).length, 0));
    runId = history[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return sizes;
}

/** A run's events, read over a connection that takes large messages: a page of a 50 MB history does not fit 4 MB. */
async function smallPages(workflowId: string, runId: string) {
  const connection = await Connection.connect({
    address: serverAddress(),
    channelArgs: { 'grpc.max_receive_message_length': 128 * MB },
  });
  try {
    return await events(new Client({ connection }).workflow.getHandle(workflowId, runId));
  } finally {
    await connection.close();
  }
}

describe('oversized human input', () => {
  it('a review decision over the size limit is refused by the Update validator, without history', async () => {
    const { model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-7', amount: 60 }),
      scriptStep.text('Done.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'refund A-7', model });
    const [review] = (await awaiting(handle, 'awaiting_review')).reviews;
    const before = (await events(handle)).length;
    const big = 'x'.repeat(MB);
    for (const decision of [
      { type: 'respond', content: big },
      { type: 'reject', reason: big },
      { type: 'edit', args: { orderId: big, amount: 1 } },
    ]) {
      await expect(
        handle.executeUpdate(reviewToolCallUpdate, {
          args: [{ toolCallId: review!.toolCallId, argsHash: review!.argsHash, decision: decision as never }],
        }),
      ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/larger than 20000 characters/) } });
    }
    expect((await events(handle)).length).toBe(before);
    await handle.executeUpdate(reviewToolCallUpdate, {
      args: [
        { toolCallId: review!.toolCallId, argsHash: review!.argsHash, decision: { type: 'reject', reason: 'no' } },
      ],
    });
    expect(await handle.result()).toMatchObject({ answer: 'Done.' });
  });
});

describe('a flood of invalid 1 MB Signals', () => {
  // Signals enter history before any handler runs, and while they keep coming the server refuses a
  // continue-as-new. The dev server refuses a run's Signals past MAX_SIGNALS_PER_RUN (40 MB of
  // these), so the run survives the flood; it hands over once the flood stops, and its next run
  // starts small. Every wait is on a condition, with bounds far above what a loaded machine needs.
  it('is survived: the server refuses Signals past its cap, the run hands over and completes once answered', {
    timeout: 300_000,
  }, async () => {
    const { model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1', window: 'morning' }),
      scriptStep.text('Scheduled.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model });
    const { clarification } = await awaiting(handle, 'awaiting_clarification');
    const firstRunId = (await handle.describe()).runId;
    const garbage = { id: clarification!.id, answer: 'x'.repeat(MB) };
    let refused = 0;
    for (let i = 0; i < 60; i++) await handle.signal(answerClarificationSignal, garbage).catch(() => refused++);
    // Refused past the cap of whichever run was current (a run may hand over mid-flood, between two Signals).
    expect(refused).toBeGreaterThan(0);
    // The first run handed over (it did not end any other way): its successor runs.
    await waitFor(
      async () => ((await handle.describe()).runId !== firstRunId ? true : undefined),
      'the hand-over',
      240_000,
    );
    expect((await w.client.workflow.getHandle(handle.workflowId, firstRunId).describe()).status.name).toBe(
      'CONTINUED_AS_NEW',
    );
    // A Query fails while the server retries a workflow task it failed for buffered Signals: ask again.
    const state = await waitFor(
      async () => {
        const s = await handle.query(stateQuery).catch(() => undefined);
        return s?.phase === 'awaiting_clarification' && !s.continuingAsNew && s.generation > 0 ? s : undefined;
      },
      'the question, still open in the new run',
      240_000,
    );
    await handle.executeUpdate(answerClarificationUpdate, {
      args: [{ id: state.clarification!.id, answer: 'morning' }],
    });
    expect(await handle.result()).toMatchObject({ answer: 'Scheduled.' });
    const sizes = await chain(handle);
    // Sizes are of JSON, where payloads are base64 (× 4/3). The run that finished took fewer Signals
    // than a hand-over needs (it may have taken some: under load a run hands over mid-flood), and no
    // run of the chain held more than the server's cap.
    expect(sizes[0]).toBeLessThan(HAND_OVER_AFTER_SIGNALS * 1.4 * MB);
    expect(Math.max(...sizes)).toBeLessThan(MAX_SIGNALS_PER_RUN * 1.4 * MB);
  });
});

describe('a reply with 1,000 tool calls', () => {
  it('runs the first maxCallsPerTurn calls, refuses the rest with a structured error, and completes', async () => {
    const before = calls.lookup_order ?? 0;
    const many = Array.from({ length: 1_000 }, (_, i) => ({
      name: 'lookup_order',
      arguments: { orderId: `A-${1000 + i}` },
    }));
    const { model, scripted } = w.script([scriptStep.calls(many), scriptStep.text('Looked up the first 32.')]);
    const handle = await w.start({ agent: 'test', prompt: 'look them all up', model, policy: { maxToolCalls: 5_000 } });
    expect(await handle.result()).toMatchObject({ answer: 'Looked up the first 32.' });
    expect((calls.lookup_order ?? 0) - before).toBe(32);
    const results = scripted.requests[1]!.messages.filter((m) => m.role === 'tool') as {
      content: { error?: { code: string } };
    }[];
    expect(results).toHaveLength(1_000);
    expect(results.slice(32).every((m) => m.content.error?.code === 'too_many_calls')).toBe(true);
    await chain(handle);
  });
});
