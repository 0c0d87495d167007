/**
 * Humans in the loop on a real dev server: clarifications answered by Update and by Signal
 * (a refused answer writes no history), the four review decisions and a stale one, plus
 * continue-as-new mid-run and a worker restarted mid-run.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep } from '../testing/script-steps.js';
import {
  answerClarificationSignal,
  answerClarificationUpdate,
  cancelSignal,
  pauseSignal,
  resumeSignal,
  reviewToolCallSignal,
  reviewToolCallUpdate,
  stateQuery,
  untilIdleUpdate,
  type AgentRunInput,
  type AgentRunResult,
} from '../workflows/contract/index.js';
import { calls } from './fixtures/tools.js';
import { recordHistory } from './support/histories.js';
import { events, awaiting, waitFor, type HistoryEvent } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';
import { WithStartWorkflowOperation, type WorkflowHandle } from '@temporalio/client';

let w: TestWorker;
beforeAll(async () => void (w = await startTestWorker()));
afterAll(() => w?.stop());

const redelivery = () => [
  scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
  scriptStep.react(({ messages }) => {
    const answer = messages.findLast((m) => m.role === 'user')!;
    return scriptStep.call('schedule_redelivery', {
      orderId: 'A-1',
      window: answer.content.includes('afternoon') ? 'afternoon' : 'morning',
    });
  }),
  scriptStep.text('Scheduled.'),
];

describe('clarification', () => {
  it('asks, refuses invalid answers without writing history, and continues with a valid one', async () => {
    const { model, scripted } = w.script(redelivery());
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model });
    const state = await awaiting(handle, 'awaiting_clarification');
    expect(state.clarification).toMatchObject({
      id: 'q1',
      question: expect.stringMatching(/delivery window/),
      missingFields: ['window'],
    });

    const before = (await events(handle)).length;
    await expect(
      handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q9', answer: 'afternoon' }] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/Unknown clarification id/) } });
    await expect(
      handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q1', answer: '   ' }] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/empty/) } });
    await expect(
      handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q1', answer: 42 as never }] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/non-empty text/) } });
    expect((await events(handle)).length).toBe(before);

    await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q1', answer: 'afternoon please' }] });
    expect((await handle.result()).answer).toBe('Scheduled.');
    expect(scripted.requests[2]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: { window: 'afternoon', scheduled: true },
    });
    await recordHistory(handle, 'clarification-update');
  });

  it("asks the end user for missing fields in the field's words, never the tool's name; the model gets both", async () => {
    const { model, scripted } = w.script([scriptStep.call('ask_helper', {}), scriptStep.text('Handed over.')]);
    const handle = await w.start({
      agent: 'test',
      prompt: 'find order A-1',
      model,
      policy: { missingFieldsFrom: 'user' },
    });
    const state = await awaiting(handle, 'awaiting_clarification');
    // The field's .describe(...) text, read in the workflow sandbox.
    expect(state.clarification!.question).toBe(
      'I need a bit more information: what the other agent should do, with everything it needs to know. Could you provide it?',
    );
    expect(state.clarification).toMatchObject({ tool: 'ask_helper', missingFields: ['task'] });
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q1', answer: 'Find order A-1.' }] });
    expect((await handle.result()).answer).toBe('Handed over.');
    expect(JSON.stringify(scripted.requests[1]!.messages.at(-1))).toContain(
      "(asked for ask_helper's missing task): Find order A-1.",
    );
  });

  it('takes the answer by Signal too, ignoring an invalid one', async () => {
    const { model } = w.script(redelivery());
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model });
    await awaiting(handle, 'awaiting_clarification');
    await handle.signal(answerClarificationSignal, { id: 'nope', answer: 'morning' });
    expect((await handle.query(stateQuery)).phase).toBe('awaiting_clarification');
    await handle.signal(answerClarificationSignal, { id: 'q1', answer: 'morning' });
    expect((await handle.result()).answer).toBe('Scheduled.');
  });
});

describe('review of tool calls', () => {
  /** The review pending after `decided`'s (the run's next reviewed call). */
  const nextReview = async (handle: WorkflowHandle, decided: string) => {
    const state = await waitFor(async () => {
      const s = await handle.query(stateQuery);
      return s.reviews.some((r) => r.toolCallId !== decided) ? s : undefined;
    }, 'the next review');
    return state.reviews.find((r) => r.toolCallId !== decided)!;
  };
  const rejectNextReview = async (handle: WorkflowHandle, decided: string) => {
    const next = await nextReview(handle, decided);
    await handle.executeUpdate(reviewToolCallUpdate, {
      args: [{ toolCallId: next.toolCallId, argsHash: next.argsHash, decision: { type: 'reject' } }],
    });
  };
  const refundRun = async (...after: ReturnType<typeof scriptStep.text>[]) => {
    const { model, scripted } = w.script([scriptStep.call('issue_refund', { orderId: 'A-7', amount: 60 }), ...after]);
    const handle = await w.start({ agent: 'test', prompt: 'refund A-7', model });
    const [review] = (await awaiting(handle, 'awaiting_review')).reviews;
    return { handle, scripted, review: review! };
  };

  it.each([
    ['accept', { type: 'accept' }, { refunded: 60, orderId: 'A-7' }, 1],
    ['edit', { type: 'edit', args: { orderId: 'A-7', amount: 45 } }, { refunded: 45 }, 1],
    [
      'respond',
      { type: 'respond', content: { refunded: 0, note: 'handled by phone' } },
      { note: 'handled by phone' },
      0,
    ],
    [
      'reject',
      { type: 'reject', reason: 'over the limit' },
      { error: { code: 'rejected_by_human', message: expect.stringMatching(/over the limit/) } },
      0,
    ],
  ] as const)('%s', async (name, decision, seen, runs) => {
    const before = calls.issue_refund ?? 0;
    // A second reviewed call keeps the run open while the decision is sent again.
    const { handle, scripted, review } = await refundRun(
      scriptStep.call('issue_refund', { orderId: 'A-8', amount: 80 }),
      scriptStep.text('Done.'),
    );
    expect(review).toMatchObject({ name: 'issue_refund', args: { orderId: 'A-7', amount: 60 } });
    const input = { toolCallId: review.toolCallId, argsHash: review.argsHash, decision: decision as never };
    await handle.executeUpdate(reviewToolCallUpdate, { args: [input] });
    // The same decision again (another reviewer): refused, naming the decision that counted; nothing changes.
    await expect(handle.executeUpdate(reviewToolCallUpdate, { args: [input] })).rejects.toMatchObject({
      cause: { details: [{ code: 'already_decided' }], message: expect.stringContaining('counted') },
    });
    await rejectNextReview(handle, review.toolCallId);
    await handle.result();
    expect((calls.issue_refund ?? 0) - before).toBe(runs);
    expect(scripted.requests[1]!.messages.findLast((m) => m.role === 'tool')).toMatchObject({ content: seen });
    await recordHistory(handle, `review-${name}`);
  });

  it("whileReviewing 'run_others': the free calls run at once, each held call as its decision comes, in any order over two surfaces, a restart between them loses nothing", async () => {
    const before = { refund: calls.issue_refund ?? 0, lookup: calls.lookup_order ?? 0 };
    const { model, scripted } = w.script([
      scriptStep.calls([
        { name: 'issue_refund', arguments: { orderId: 'A-1', amount: 60 } }, // held: over 50
        { name: 'lookup_order', arguments: { orderId: 'A-2' } },
        { name: 'issue_refund', arguments: { orderId: 'A-3', amount: 70 } }, // held
        { name: 'issue_refund', arguments: { orderId: 'A-4', amount: 20 } },
      ]),
      scriptStep.text('Done.'),
    ]);
    const handle = await w.start({
      agent: 'test',
      prompt: 'four things',
      model,
      policy: { whileReviewing: 'run_others' },
    });
    // The reviews are asked at once; untilIdle returns when nothing but a person is left to wait for.
    const { reviews } = await handle.executeUpdate(untilIdleUpdate);
    expect(reviews.map((r) => r.args)).toEqual([
      { orderId: 'A-1', amount: 60 },
      { orderId: 'A-3', amount: 70 },
    ]);
    // The two calls that need no review have run (their effects are visible) while the reviews wait.
    expect((calls.issue_refund ?? 0) - before.refund).toBe(1);
    expect((calls.lookup_order ?? 0) - before.lookup).toBe(1);
    const [first, second] = reviews as [(typeof reviews)[0], (typeof reviews)[0]];
    // The second first, by Update: it runs at once, while the first still waits for its reviewer.
    await handle.executeUpdate(reviewToolCallUpdate, {
      args: [{ toolCallId: second.toolCallId, argsHash: second.argsHash, decision: { type: 'accept' } }],
    });
    const waiting = await waitFor(async () => {
      const s = await handle.executeUpdate(untilIdleUpdate);
      return s.reviews.length === 1 ? s : undefined;
    }, 'the first review alone');
    expect(waiting).toMatchObject({ phase: 'awaiting_review', reviews: [{ toolCallId: first.toolCallId }] });
    expect((calls.issue_refund ?? 0) - before.refund).toBe(2);
    // The worker restarts; then the first is rejected, by Signal.
    await w.restart();
    await handle.signal(reviewToolCallSignal, {
      toolCallId: first.toolCallId,
      argsHash: first.argsHash,
      decision: { type: 'reject', reason: 'no' },
    });
    expect((await handle.result()).answer).toBe('Done.');
    // A third decision, on a call already settled, is refused and changes nothing.
    const settled = await w.start({
      agent: 'test',
      prompt: 'again',
      model: w.script([
        scriptStep.calls([
          { name: 'issue_refund', arguments: { orderId: 'B-1', amount: 60 } },
          { name: 'issue_refund', arguments: { orderId: 'B-2', amount: 70 } },
        ]),
        scriptStep.text('Done.'),
      ]).model,
      policy: { whileReviewing: 'run_others' },
    });
    const [b1] = (await awaiting(settled, 'awaiting_review')).reviews;
    const decided = { toolCallId: b1!.toolCallId, argsHash: b1!.argsHash, decision: { type: 'accept' } as const };
    await settled.executeUpdate(reviewToolCallUpdate, { args: [decided] });
    await expect(
      settled.executeUpdate(reviewToolCallUpdate, { args: [{ ...decided, decision: { type: 'reject' } }] }),
    ).rejects.toMatchObject({ cause: { details: [{ code: 'already_decided' }] } });
    // B-1 ran as its decision came; B-2 still waits (cancelled, it never runs).
    await waitFor(
      async () => ((await settled.executeUpdate(untilIdleUpdate)).reviews.length === 1 ? true : undefined),
      'B-2 alone',
    );
    await settled.signal(cancelSignal, 'done with the test');
    await settled.result();
    // Each call ran once: the unreviewed one and the accepted ones; the rejected one and the cancelled one never.
    expect((calls.issue_refund ?? 0) - before.refund).toBe(3);
    expect((calls.lookup_order ?? 0) - before.lookup).toBe(1);
    // The model got the whole batch, in call order, after the last decision.
    const results = scripted.requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.content)).toMatchObject([
      { error: { code: 'rejected_by_human' } },
      { id: 'A-2' },
      { refunded: 70, orderId: 'A-3' },
      { refunded: 20, orderId: 'A-4' },
    ]);
  });

  it("offers only the decisions the tool's review config allows, with its description, and refuses others without history", async () => {
    const { model, scripted } = w.script([
      scriptStep.call('wire_transfer', { account: 'DE-1', amount: 500 }),
      scriptStep.text('Done.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'wire 500', model });
    const state = await awaiting(handle, 'awaiting_review');
    const [review] = state.reviews;
    expect(review).toMatchObject({
      name: 'wire_transfer',
      allowed: ['accept', 'reject'],
      description: 'Check the account against the customer record before accepting.',
    });
    const before = (await events(handle)).length;
    for (const decision of [
      { type: 'edit', args: { account: 'DE-2', amount: 500 } },
      { type: 'respond', content: { wired: 0 } },
    ]) {
      await expect(
        handle.executeUpdate(reviewToolCallUpdate, {
          args: [{ toolCallId: review!.toolCallId, argsHash: review!.argsHash, decision: decision as never }],
        }),
      ).rejects.toMatchObject({
        cause: {
          message: `wire_transfer does not allow "${decision.type}" in review; allowed: accept, reject.`,
          nonRetryable: true,
        },
      });
    }
    expect((await events(handle)).length).toBe(before);
    await handle.executeUpdate(reviewToolCallUpdate, {
      args: [{ toolCallId: review!.toolCallId, argsHash: review!.argsHash, decision: { type: 'accept' } }],
    });
    await handle.result();
    expect(scripted.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: { wired: 500 } });
  });

  it('tells the model what the reviewer changed, after the results', async () => {
    const { handle, scripted, review } = await refundRun(scriptStep.text('Done.'));
    await handle.executeUpdate(reviewToolCallUpdate, {
      args: [
        {
          toolCallId: review.toolCallId,
          argsHash: review.argsHash,
          decision: { type: 'edit', args: { orderId: 'A-7', amount: 45 } },
        },
      ],
    });
    await handle.result();
    const seen = scripted.requests[1]!.messages;
    expect(seen.at(-2)).toMatchObject({ role: 'tool', content: { refunded: 45 } });
    expect(seen.at(-1)).toEqual({
      role: 'user',
      content:
        '[cairn] A reviewer edited your issue_refund call 1.1: it ran with {"orderId":"A-7","amount":45}, not {"orderId":"A-7","amount":60}.',
    });
  });

  it('fails closed on a stale decision and on invalid edits, without history', async () => {
    // A second reviewed call after the first keeps the run open for the checks on a decided call.
    const { handle, review } = await refundRun(
      scriptStep.call('issue_refund', { orderId: 'A-8', amount: 80 }),
      scriptStep.text('Done.'),
    );
    const before = (await events(handle)).length;
    await expect(
      handle.executeUpdate(reviewToolCallUpdate, {
        args: [{ toolCallId: review.toolCallId, argsHash: 'stale', decision: { type: 'accept' } }],
      }),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/Stale decision/) } });
    await expect(
      handle.executeUpdate(reviewToolCallUpdate, {
        args: [
          {
            toolCallId: review.toolCallId,
            argsHash: review.argsHash,
            decision: { type: 'edit', args: { orderId: 'A-7', amount: -5 } },
          },
        ],
      }),
    ).rejects.toMatchObject({
      // Said to the reviewer, about their edit: not the model's "fix them and call it again".
      cause: {
        message:
          'The edited arguments are invalid for issue_refund: `amount` must be > 0, not -5. Correct the edit and submit it again.',
      },
    });
    // Ids that are keys of every object: refused as unknown, structured, not a crash of the validator.
    for (const toolCallId of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      await expect(
        handle.executeUpdate(reviewToolCallUpdate, {
          args: [{ toolCallId, argsHash: review.argsHash, decision: { type: 'accept' } }],
        }),
      ).rejects.toMatchObject({
        cause: { type: 'HumanInputError', message: `No review is pending for tool call "${toolCallId}".` },
      });
    expect((await events(handle)).length).toBe(before);
    await handle.executeUpdate(reviewToolCallUpdate, {
      args: [{ toolCallId: review.toolCallId, argsHash: review.argsHash, decision: { type: 'reject' } }],
    });
    const next = await nextReview(handle, review.toolCallId);
    await expect(
      handle.executeUpdate(reviewToolCallUpdate, {
        args: [{ toolCallId: review.toolCallId, argsHash: review.argsHash, decision: { type: 'accept' } }],
      }),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/already decided/) } });
    // Once a decision is taken too (the decided record is looked up first).
    await expect(
      handle.executeUpdate(reviewToolCallUpdate, {
        args: [{ toolCallId: '__proto__', argsHash: review.argsHash, decision: { type: 'accept' } }],
      }),
    ).rejects.toMatchObject({
      cause: { type: 'HumanInputError' },
    });
    await handle.executeUpdate(reviewToolCallUpdate, {
      args: [{ toolCallId: next.toolCallId, argsHash: next.argsHash, decision: { type: 'reject' } }],
    });
    await handle.result();
  });
});

describe('long and interrupted runs', () => {
  it('continues as new mid-run, carrying the transcript and a pending question', async () => {
    const { model, scripted } = w.script([scriptStep.call('lookup_order', { orderId: 'A-1' }), ...redelivery()]);
    const handle = await w.start({ agent: 'test', prompt: 'A-1', model, continueAsNewAfterTurns: 1 });
    const latest = w.client.workflow.getHandle(handle.workflowId);
    const state = await awaiting(latest, 'awaiting_clarification');
    expect(state.generation).toBeGreaterThan(0);
    // One step log across the chain: the first run's steps, numbered on without a gap.
    expect(state.steps[0]).toMatchObject({ seq: 1, turn: 0, action: 'model' });
    expect(state.steps.map((s) => s.seq)).toEqual(state.steps.map((_, i) => i + 1));
    expect(state.steps.at(-1)).toMatchObject({ action: 'clarify' });
    await latest.executeUpdate(answerClarificationUpdate, {
      args: [{ id: state.clarification!.id, answer: 'morning' }],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ answer: 'Scheduled.', toolCalls: 3 });
    expect(result.generation).toBeGreaterThanOrEqual(3); // one hand-over per model turn
    // The last turn still saw the first turn's tool result, carried through every hand-over.
    expect(scripted.requests.at(-1)!.messages.some((m) => m.role === 'tool' && m.name === 'lookup_order')).toBe(true);
    await recordHistory(
      w.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId),
      'continue-as-new-first-run',
    ); // ends by continuing as new
    await recordHistory(latest, 'continue-as-new-last-run'); // starts from carried state
  });

  it('carries a pending review across continue-as-new', async () => {
    const before = calls.issue_refund ?? 0;
    const { model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-7', amount: 60 }),
      scriptStep.text('Done.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'refund A-7', model, continueAsNewAfterTurns: 1 });
    const latest = w.client.workflow.getHandle(handle.workflowId);
    // The first run awaits the review for a moment before it hands over: wait for the second's.
    const { reviews } = await waitFor(async () => {
      const s = await latest.query(stateQuery).catch(() => undefined);
      return s?.phase === 'awaiting_review' && s.generation === 1 && !s.continuingAsNew ? s : undefined;
    }, 'the review in the second run');
    const input = {
      toolCallId: reviews[0]!.toolCallId,
      argsHash: reviews[0]!.argsHash,
      decision: { type: 'accept' } as const,
    };
    await latest.executeUpdate(reviewToolCallUpdate, { args: [input] });
    const result = await handle.result();
    expect(result).toMatchObject({ answer: 'Done.', generation: 1 });
    expect((calls.issue_refund ?? 0) - before).toBe(1);
  });

  it('survives a worker restart mid-run', async () => {
    const { model } = w.script(redelivery());
    const handle = await w.start({ agent: 'test', prompt: 'redeliver', model });
    await awaiting(handle, 'awaiting_clarification');
    await w.restart();
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q1', answer: 'morning' }] });
    expect((await handle.result()).answer).toBe('Scheduled.');
  });
});

describe('run control: pause, resume, cancel', () => {
  /** Starts a run that is paused before its first step (the pause arrives with the start). */
  const startPaused = async (input: AgentRunInput) => {
    const handle = await w.client.workflow.signalWithStart<(input: AgentRunInput) => Promise<AgentRunResult>, []>(
      'agentRun',
      {
        taskQueue: w.taskQueue,
        workflowId: `test-paused-${randomUUID()}`,
        args: [input],
        signal: pauseSignal,
        signalArgs: [],
        workflowExecutionTimeout: '2m',
      },
    );
    await waitFor(async () => ((await handle.query(stateQuery)).paused ? true : undefined), 'paused');
    return handle;
  };

  it('holds a paused run between steps and goes on when resumed', async () => {
    const { model, scripted } = w.script([scriptStep.text('Done.')]);
    const handle = await startPaused({ agent: 'test', prompt: 'hello', model });
    await new Promise((r) => setTimeout(r, 300));
    expect(scripted.requests).toHaveLength(0);
    await handle.signal(resumeSignal);
    expect(await handle.result()).toMatchObject({ answer: 'Done.', reason: null });
  });

  it('finishes a paused run that is cancelled, with the reason', async () => {
    const { model } = w.script([scriptStep.text('Stopped as asked.')]);
    const handle = await startPaused({ agent: 'test', prompt: 'hello', model });
    await handle.signal(cancelSignal, 'the operator said stop');
    expect(await handle.result()).toMatchObject({
      answer: 'Stopped as asked.',
      reason: expect.stringMatching(/the operator said stop/),
    });
    await recordHistory(handle, 'cancel-while-paused');
  });

  it('takes a cancel whose payload is not text, instead of wedging the run', async () => {
    const { model } = w.script([scriptStep.text('Stopped.')]);
    const handle = await startPaused({ agent: 'test', prompt: 'hello', model });
    await handle.signal(cancelSignal, { why: 'not a string' } as never);
    expect(await handle.result()).toMatchObject({
      answer: 'Stopped.',
      reason: expect.stringMatching(/cancelled by a user/),
    });
  });

  it("stops a pending question's clock while paused", async () => {
    const { model } = w.script(redelivery());
    const handle = await w.start({
      agent: 'test',
      prompt: 'redeliver A-1',
      model,
      policy: { clarificationTimeoutMs: 1_500 },
    });
    await awaiting(handle, 'awaiting_clarification');
    await handle.signal(pauseSignal);
    await new Promise((r) => setTimeout(r, 2_500)); // past the timeout, had the clock run
    expect(await handle.query(stateQuery)).toMatchObject({
      phase: 'awaiting_clarification',
      paused: true,
      clarification: { id: 'q1' },
    });
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q1', answer: 'morning' }] });
    await handle.signal(resumeSignal);
    expect(await handle.result()).toMatchObject({ answer: 'Scheduled.', reason: null });
  });

  it('cuts a long back-off short when cancelled', async () => {
    const { model } = w.script([scriptStep.call('busy_api', {}), scriptStep.text('Gave up.')]);
    const handle = await w.start({
      agent: 'test',
      prompt: 'call the busy API',
      model,
      policy: { backoff: { maxRetryAfterMs: 120_000 } },
    });
    await awaiting(handle, 'backing_off');
    await handle.signal(cancelSignal, 'not waiting a minute');
    expect(await handle.result()).toMatchObject({
      answer: 'Gave up.',
      reason: expect.stringMatching(/not waiting a minute/),
    });
    // Cut short: the back-off's timer was cancelled, it never fired (no wall-clock guess).
    const history = await events(handle);
    expect(history.filter((e) => e.timerCanceledEventAttributes)).toHaveLength(1);
    expect(history.filter((e) => e.timerFiredEventAttributes)).toHaveLength(0);
    await recordHistory(handle, 'cancel-during-back-off');
  });

  it('carries an answer given while paused across continue-as-new, and refuses a second answer', async () => {
    // The batch's second call takes a moment: the pause lands while it runs, so the run holds
    // with the question pending, before it waits for the answer.
    const [, ...rest] = redelivery();
    const { model } = w.script([
      scriptStep.calls([
        { name: 'schedule_redelivery', arguments: { orderId: 'A-1' } },
        { name: 'takes_a_moment', arguments: {} },
      ]),
      ...rest,
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model, continueAsNewAfterTurns: 1 });
    await awaiting(handle, 'tools');
    await handle.signal(pauseSignal);
    const state = await waitFor(async () => {
      const s = await handle.query(stateQuery);
      return s.phase === 'awaiting_clarification' && s.paused ? s : undefined;
    }, 'paused at the question');
    expect(state.generation).toBe(0);
    const answer = (text: string) =>
      handle.executeUpdate(answerClarificationUpdate, { args: [{ id: state.clarification!.id, answer: text }] });
    await answer('afternoon');
    await expect(answer('morning')).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/already answered/) },
    });
    await handle.signal(resumeSignal);
    const result = await handle.result();
    expect(result).toMatchObject({ answer: 'Scheduled.' });
    expect(result.generation).toBeGreaterThanOrEqual(1);
    // The hand-over carried the answer: the first run's continue-as-new input holds it.
    const first = await events(w.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId));
    expect(continuedWith(first)?.carried).toMatchObject({ answer: 'afternoon', step: { type: 'await_clarification' } });
    await recordHistory(
      w.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId),
      'continue-as-new-carried-answer',
    );
  });
});

/** The input a run continued as new with, decoded from its history. */
function continuedWith(history: HistoryEvent[]): AgentRunInput | undefined {
  const data = history.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)
    ?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString()) as AgentRunInput) : undefined;
}

describe('starting a run and reading it like a person would', () => {
  const startOperation = (input: AgentRunInput) =>
    new WithStartWorkflowOperation<(input: AgentRunInput) => Promise<AgentRunResult>>('agentRun', {
      taskQueue: w.taskQueue,
      workflowId: `test-uws-${randomUUID()}`,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
      workflowExecutionTimeout: '2m',
    });

  it('starts with update-with-start and returns once the run needs a person', async () => {
    const { model } = w.script(redelivery());
    const start = startOperation({ agent: 'test', prompt: 'redeliver A-1', model });
    const state = await w.client.workflow.executeUpdateWithStart(untilIdleUpdate, { startWorkflowOperation: start });
    expect(state).toMatchObject({
      phase: 'awaiting_clarification',
      clarification: { id: 'q1', missingFields: ['window'] },
    });
    const handle = await start.workflowHandle();
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q1', answer: 'morning' }] });
    expect((await handle.result()).answer).toBe('Scheduled.');
    await recordHistory(handle, 'update-with-start');
  });

  it('lets a waiting untilIdle return when the run continues as new, instead of blocking the hand-over', async () => {
    const { model } = w.script([scriptStep.call('lookup_order', { orderId: 'A-1' }), scriptStep.text('Done.')]);
    const start = startOperation({ agent: 'test', prompt: 'A-1', model, continueAsNewAfterTurns: 1 });
    const state = await w.client.workflow.executeUpdateWithStart(untilIdleUpdate, { startWorkflowOperation: start });
    expect(state).toMatchObject({ phase: 'model', generation: 0, turn: 1, continuingAsNew: true });
    expect(await (await start.workflowHandle()).result()).toMatchObject({ answer: 'Done.', generation: 1 });
  });

  it('reads like a story in the Temporal UI: activity summaries and current details', async () => {
    const { model } = w.script(redelivery());
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model });
    await awaiting(handle, 'awaiting_clarification');
    const summaries = (await events(handle)).flatMap((e) => {
      const data = e.activityTaskScheduledEventAttributes ? e.userMetadata?.summary?.data : undefined;
      return data ? [JSON.parse(Buffer.from(data).toString()) as string] : [];
    });
    expect(summaries).toEqual(['model turn 1', expect.stringMatching(/^schedule_redelivery .*A-1/)]);
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toMatch(/phase `awaiting_clarification`/);
    expect(metadata.currentDetails).toMatch(/Question q1:\*\* Which delivery window suits you/);
    await handle.signal(cancelSignal, 'test over');
    await handle.result();
  });
});
