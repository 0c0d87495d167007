/**
 * A run's live event stream on a real dev server: every step an event with an offset, read from
 * any offset across continue-as-new, by the typed client and by a bare Workflow Streams poll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowUpdateStage } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import type { RunEventItem } from '../client/run-events.js';
import { scriptStep } from '../testing/script-steps.js';
import { answerClarificationUpdate } from '../workflows/contract/index.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';
import { recordHistory } from './support/histories.js';

let w: TestWorker;
beforeAll(async () => void (w = await startTestWorker()));
afterAll(() => w?.stop());

async function collect(run: AgentRunHandle, from = 0, until?: (e: RunEventItem) => boolean): Promise<RunEventItem[]> {
  const seen: RunEventItem[] = [];
  for await (const event of run.events({ from })) {
    seen.push(event);
    if (until?.(event)) break;
  }
  return seen;
}

describe('the run event stream', () => {
  it('tells every step in offset order across continue-as-new, tool ends with structured errors and child run links', async () => {
    const { model } = w.script([
      scriptStep.call('lookup_order', { orderId: 'nope' }), // refused in the workflow: invalid_arguments
      scriptStep.call('lookup_order', { orderId: 'A-1001' }),
      scriptStep.call('ask_helper', { task: 'Is A-1001 late?' }),
      scriptStep.text('No, it is on time.'), // the child's answer
      scriptStep.text('A-1001 is on time.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'Check A-1001.', model, continueAsNewAfterTurns: 1 });
    const run = new AgentRunHandle(w.client, handle.workflowId);
    const events = await collect(run);
    expect(await handle.result()).toMatchObject({ answer: 'A-1001 is on time.' });

    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ type: 'run_started', agent: 'test' });
    expect(events.at(-1)).toMatchObject({ type: 'finish', answer: 'A-1001 is on time.', reason: null });
    expect(events.filter((e) => e.type === 'hand_over').length).toBeGreaterThanOrEqual(2);
    const ends = events.filter((e) => e.type === 'tool_end');
    expect(ends.map((e) => [e.name, e.toolCallId])).toEqual([
      ['lookup_order', '1.1'],
      ['lookup_order', '2.1'],
      ['ask_helper', '3.1'],
    ]);
    expect(ends[0]!.result).toMatchObject({
      status: 'error',
      error: { code: 'invalid_arguments', kind: 'invalid_input' },
      retryHint: {
        reason: 'invalid_arguments',
        tool: 'lookup_order',
        restrictToTool: true,
        exampleInput: { orderId: 'A-1001' },
      },
    });
    expect(ends[2]!.result).toMatchObject({
      status: 'ok',
      result: { answer: 'No, it is on time.' },
      runLink: { workflowId: `${handle.workflowId}/3.1` },
      childrenCount: 1,
    });
    // The refused call never started; the others did, each before it ended.
    const starts = events.filter((e) => e.type === 'tool_start').map((e) => e.toolCallId);
    expect(starts).toEqual(['2.1', '3.1']);
    expect(events.findIndex((e) => e.type === 'tool_start' && e.toolCallId === '2.1')).toBeLessThan(
      events.findIndex((e) => e.type === 'tool_end' && e.toolCallId === '2.1'),
    );
    expect(events.filter((e) => e.type === 'model_turn')).toHaveLength(4);

    // A subscriber that restarts from an offset gets everything after it, and only that.
    expect(await collect(run, 5)).toEqual(events.slice(5));
  });

  it('a live subscriber waits for what comes next, and resumes from its offset after a restart', async () => {
    const { model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1', window: 'morning' }),
      scriptStep.text('Scheduled.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model });
    const run = new AgentRunHandle(w.client, handle.workflowId);
    const first = await collect(run, 0, (e) => e.type === 'question');
    const question = first.at(-1)!;
    expect(question).toMatchObject({
      type: 'question',
      clarification: { question: 'Which delivery window suits you: morning or afternoon?' },
    });
    // The watcher is gone; the run goes on; a new watcher picks up where the first stopped.
    await handle.executeUpdate(answerClarificationUpdate, {
      args: [{ id: question.type === 'question' ? question.clarification.id : '', answer: 'morning' }],
    });
    const rest = await collect(run, question.offset + 1);
    expect(rest[0]).toMatchObject({ type: 'human', kind: 'answer', offset: question.offset + 1 });
    expect(rest.at(-1)).toMatchObject({ type: 'finish', answer: 'Scheduled.' });
    await recordHistory(handle, 'events-question-answered');
  });

  it('speaks the Workflow Streams protocol: a bare poll Update with a topic filter, items as Payloads', async () => {
    const { model } = w.script([scriptStep.call('lookup_order', { orderId: 'nope' }), scriptStep.text('Could not.')]);
    const handle = await w.start({ agent: 'test', prompt: 'x', model });
    type Poll = { items: { topic: string; data: string; offset: number }[]; next_offset: number; more_ready: boolean };
    // As Workflow Streams subscribers do: a poll returns what came (filtered, maybe nothing); poll on from next_offset.
    let result: Poll = { items: [], next_offset: 0, more_ready: false };
    while (result.items.length === 0) {
      const update = await handle.startUpdate('__temporal_workflow_stream_poll', {
        args: [{ topics: ['tool_end'], from_offset: result.next_offset }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      result = (await update.result()) as Poll;
    }
    expect(result.items.map((i) => i.topic)).toEqual(['tool_end']);
    const payload = temporal.api.common.v1.Payload.decode(Buffer.from(result.items[0]!.data, 'base64'));
    expect(defaultPayloadConverter.fromPayload(payload)).toMatchObject({
      type: 'tool_end',
      result: { error: { code: 'invalid_arguments' } },
    });
    expect(await handle.query<number>('__temporal_workflow_stream_offset')).toBeGreaterThan(result.items[0]!.offset);
    await handle.result();
  });
});
