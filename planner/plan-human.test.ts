/**
 * A human's part in a run: review decisions (seed 003: accept, edit, respond, reject),
 * clarification answers and timeouts, and cancel.
 */
import { describe, expect, it } from 'vitest';
import { argsHash } from '../shared/identity/hash.js';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../shared/tools/define-tool.js';
import { MAX_HUMAN_INPUT_CHARS } from '../shared/size-limits.js';
import type { PendingReview } from '../shared/human-input/pending-review.js';
import {
  checkReview,
  clarificationTimeLeft,
  planCancel,
  planClarificationAnswer,
  planClarificationTimeout,
  planResumed,
  planReviewed,
} from './plan-human.js';
import { planResume } from './plan-resume.js';
import type { Plan } from './plan.js';
import type { ReviewDecision, ReviewDecisionInput } from '../shared/human-input/review-decision.js';
import {
  afterModel,
  checked,
  drive,
  failed,
  keyOf,
  ok,
  rawCall,
  start,
  stepOf,
  textReply,
  toolCall,
  toolCallsReply,
  turnResulting,
  turnWith,
  TOOLS,
} from './testing.js';

const refund = toolCall('refund', { order_id: 'A-17', amount: 120 }, '1.1');
const search = toolCall('search_orders', { status: 'shipped' }, '1.2');
const finalNote = (reason: string) => `Stop calling tools (${reason}). Give your final answer now from what you have.`;

/** A batch where `refund` needs approval and `search` does not, waiting for review since t=1000. */
function awaitingReview(): Plan {
  return turnWith(
    start().state,
    [checked(refund, { needsApproval: true, sideEffects: 'once' }), checked(search)],
    1_000,
  );
}
const decide = (decision: ReviewDecision, now = 5_000) =>
  planReviewed(awaitingReview().state, { '1.1': decision }, now);

describe("review with whileReviewing: 'run_others'", () => {
  const refund2 = toolCall('refund', { order_id: 'B-2', amount: 80 }, '1.3');
  const lookup = toolCall('search_orders', { status: 'open' }, '1.4');
  /** Four calls, two of them held for review, the others run first. */
  const running = () =>
    turnWith(
      start({ whileReviewing: 'run_others' }).state,
      [
        checked(refund, { needsApproval: true, sideEffects: 'once' }),
        checked(search),
        checked(refund2, { needsApproval: true, sideEffects: 'once' }),
        checked(lookup),
      ],
      1_000,
    );

  it('runs the calls that need no review at once, asks the reviews at once, and waits for them when done', () => {
    const plan = running();
    expect(stepOf(plan, 'execute_tools').calls).toEqual([search, lookup]);
    expect(plan.state).toMatchObject({ phase: 'tools', toolCallsUsed: 4 });
    expect(plan.state.reviews.map((r) => r.toolCallId)).toEqual(['1.1', '1.3']);
    const asked = planResume(plan.state, [ok(search), ok(lookup)], 3_000);
    expect(stepOf(asked, 'await_review').reviews.map((r) => r.toolCallId)).toEqual(['1.1', '1.3']);
    expect(asked.state).toMatchObject({ phase: 'awaiting_review', waitingSince: 3_000, waitingRuns: [] });
    expect(asked.record).toEqual([]);
  });

  it('decisions in any order; the model gets the whole batch, in call order, when the last settles', () => {
    const asked = planResume(running().state, [ok(search), ok(lookup)], 3_000);
    const decided = planReviewed(
      asked.state,
      { '1.3': { type: 'reject', reason: 'no' }, '1.1': { type: 'accept' } },
      9_000,
    );
    expect(stepOf(decided, 'execute_tools').calls).toEqual([refund]);
    expect(decided.state.reviews).toEqual([]);
    const done = planResume(decided.state, [ok(refund)], 10_000);
    expect(done.record.map((r) => [r.toolCallId, r.status])).toEqual([
      ['1.1', 'ok'],
      ['1.2', 'ok'],
      ['1.3', 'error'],
      ['1.4', 'ok'],
    ]);
    expect(stepOf(done, 'call_model').toolChoice).toBe('auto');
    expect(done.state.humanWaitMs).toBe(6_000);
  });

  it('each held call goes as its own decision comes: an accepted one runs while the other still waits', () => {
    const asked = planResume(running().state, [ok(search), ok(lookup)], 3_000);
    // The second reviewer is first: refund2 runs now, refund still waits for its reviewer.
    const first = planReviewed(asked.state, { '1.3': { type: 'accept' } }, 4_000);
    expect(stepOf(first, 'execute_tools').calls).toEqual([refund2]);
    expect(first.state.reviews.map((r) => r.toolCallId)).toEqual(['1.1']);
    expect(first.state.batch?.results['1.1']).toBeUndefined();
    expect(first.state.humanWaitMs).toBe(1_000);
    // Its result is kept; the run waits again for the one still held.
    const again = planResume(first.state, [ok(refund2)], 5_000);
    expect(stepOf(again, 'await_review').reviews.map((r) => r.toolCallId)).toEqual(['1.1']);
    expect(again.record).toEqual([]);
    // A decision that runs nothing settles its call and the run waits on, its clock still going.
    const mixed = planReviewed(
      planResume(running().state, [ok(search), ok(lookup)], 3_000).state,
      { '1.1': { type: 'reject' } },
      6_000,
    );
    expect(stepOf(mixed, 'await_review').reviews.map((r) => r.toolCallId)).toEqual(['1.3']);
    expect([mixed.record, mixed.notes]).toEqual([[], []]);
    expect(mixed.state).toMatchObject({ phase: 'awaiting_review', waitingSince: 3_000 });
    expect(mixed.state.batch?.results['1.1']?.status).toBe('error');
    // The last decision: the model gets all four, in call order.
    const last = planReviewed(again.state, { '1.1': { type: 'respond', content: 'done by hand' } }, 8_000);
    expect(last.record.map((r) => [r.toolCallId, r.status])).toEqual([
      ['1.1', 'ok'],
      ['1.2', 'ok'],
      ['1.3', 'ok'],
      ['1.4', 'ok'],
    ]);
    expect(stepOf(last, 'call_model').toolChoice).toBe('auto');
    expect(last.state.humanWaitMs).toBe(4_000);
  });

  it('a batch with only held calls, or with no held call, goes as before', () => {
    const held = turnWith(
      start({ whileReviewing: 'run_others' }).state,
      [checked(refund, { needsApproval: true })],
      1_000,
    );
    expect(stepOf(held, 'await_review').reviews).toHaveLength(1);
    const free = turnWith(start({ whileReviewing: 'run_others' }).state, [checked(search)], 1_000);
    expect(stepOf(free, 'execute_tools').calls).toEqual([search]);
    expect(planResume(free.state, [ok(search)], 2_000).step.type).toBe('call_model');
  });
});

describe('review of a tool call', () => {
  it('waits for the review before anything runs', () => {
    const plan = awaitingReview();
    expect(plan.step).toEqual({
      type: 'await_review',
      reviews: [{ toolCallId: '1.1', name: 'refund', args: refund.args, argsHash: argsHash(refund.args) }],
    });
    expect(plan.state).toMatchObject({
      phase: 'awaiting_review',
      waitingSince: 1_000,
      waitingRuns: [search],
      toolCallsUsed: 2,
    });
  });

  it("accept: the call runs together with the batch's other calls; the batch is recorded in call order", () => {
    const plan = decide({ type: 'accept' });
    expect(stepOf(plan, 'execute_tools').calls).toEqual([search, refund]);
    expect(plan.state.humanWaitMs).toBe(4_000);
    const done = planResume(plan.state, [ok(search), ok(refund)], 6_000);
    expect(done.record).toEqual([ok(refund), ok(search)]);
    expect(stepOf(done, 'call_model').toolChoice).toBe('auto');
  });

  it('edit: the edited arguments run, and the call counts under its new key', () => {
    const args = { order_id: 'A-17', amount: 100 };
    const plan = decide({ type: 'edit', args, argsHash: argsHash(args) });
    const edited = { ...refund, args };
    expect(stepOf(plan, 'execute_tools').calls).toEqual([search, edited]);
    const done = planResume(plan.state, [ok(search), failed(edited, 'output_not_json')], 6_000);
    expect(done.record[0]).toMatchObject({ toolCallId: '1.1', error: { code: 'output_not_json' } });
    expect(Object.keys(done.state.blocked)).toEqual([keyOf(edited)]);
  });

  it("respond: the content becomes the call's result and the call never runs", () => {
    const plan = decide({ type: 'respond', content: { refunded: false, note: 'Handled by phone.' } });
    expect(stepOf(plan, 'execute_tools').calls).toEqual([search]);
    const done = planResume(plan.state, [ok(search)], 6_000);
    expect(done.record).toEqual([
      {
        status: 'ok',
        name: 'refund',
        toolCallId: '1.1',
        result: { refunded: false, note: 'Handled by phone.' },
        telemetry: { durationMs: 0, attempt: 0 },
      },
      ok(search),
    ]);
  });

  it.each<[string, ReviewDecision | undefined, string]>([
    [
      'reject with a reason',
      { type: 'reject', reason: 'amount too high' },
      'A human reviewer rejected this call, so it did not run: amount too high',
    ],
    ['reject without a reason', { type: 'reject' }, 'A human reviewer rejected this call, so it did not run.'],
    ['no decision', undefined, 'A human reviewer rejected this call, so it did not run: no decision'],
  ])('%s: a rejected_by_human result tells the model, nothing runs', (_name, decision, message) => {
    const admitted = turnWith(start().state, [checked(refund, { needsApproval: true })], 1_000);
    const plan = planReviewed(admitted.state, decision ? { '1.1': decision } : {}, 2_000);
    expect(plan.record).toMatchObject([
      { toolCallId: '1.1', error: { code: 'rejected_by_human', message }, retryHint: { reason: 'rejected' } },
    ]);
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'auto', tools: [...TOOLS] });
  });
});

describe('reviewed calls that run', () => {
  it('leave no review pending while they run', () => {
    const admitted = turnWith(start().state, [checked(refund, { needsApproval: true })], 1_000);
    const plan = planReviewed(admitted.state, { '1.1': { type: 'accept' } }, 2_000);
    expect(stepOf(plan, 'execute_tools').calls.map((c) => c.toolCallId)).toEqual(['1.1']);
    expect(plan.state).toMatchObject({ phase: 'tools', reviews: [], waitingRuns: [] });
  });

  it("run with the batch's calls that were refused before the review, which stay recorded", () => {
    const pay = toolCall('pay', {}, '1.2');
    const admitted = turnWith(
      start().state,
      [checked(refund, { needsApproval: true }), checked(pay, { failure: failed(pay, 'unknown_tool') })],
      1_000,
    );
    const running = planReviewed(admitted.state, { '1.1': { type: 'accept' } }, 2_000);
    const done = planResume(running.state, [ok(refund)], 3_000);
    expect(done.record.map((r) => [r.toolCallId, r.status])).toEqual([
      ['1.1', 'ok'],
      ['1.2', 'error'],
    ]);
  });
});

describe('clarification', () => {
  /** Waiting since t=1000 for the answer to "Which email is on the order?". */
  function asking(policy = {}): Plan {
    const hint = { clarifyingQuestion: 'Which email is on the order?', missingFields: ['email'] };
    return turnResulting(start(policy).state, [checked(refund)], (c) => failed(c, 'missing_fields', hint), 1_000);
  }

  it.each([
    ['text', 'ada@example.com', 'ada@example.com'],
    ['JSON', { email: 'ada@example.com' }, '{"email":"ada@example.com"}'],
  ])('a %s answer goes to the model as a note, and the model is called', (_kind, answer, shown) => {
    const plan = planClarificationAnswer(asking().state, answer, 61_000);
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'auto', tools: [...TOOLS] });
    // The person's question may name no tool or field: the model is told what it was for.
    expect(plan.notes).toEqual([
      `The user answered your question "Which email is on the order?" (asked for refund's missing email): ${shown}`,
    ]);
    expect(plan.state).toMatchObject({ clarification: null, waitingSince: null, humanWaitMs: 60_000, phase: 'model' });
  });

  it("no answer in time: a forced final turn by default (onClarificationTimeout: 'finalize')", () => {
    const plan = planClarificationTimeout(asking().state, 61_000);
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'none', tools: [] });
    expect(plan.notes).toEqual([finalNote('no answer to "Which email is on the order?" in time')]);
    expect(plan.state.humanWaitMs).toBe(60_000);
    // The run's outcome names why it ended.
    expect(plan.state.finalizingCode).toBe('no_answer');
  });

  it("no answer in time with onClarificationTimeout: 'continue': the model goes on without it", () => {
    const plan = planClarificationTimeout(asking({ onClarificationTimeout: 'continue' }).state, 61_000);
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'auto', tools: [...TOOLS] });
    expect(plan.notes).toEqual([
      'Nobody answered "Which email is on the order?" (asked for refund\'s missing email) in time. Continue without it, or say what you cannot do.',
    ]);
  });

  it("with missingFieldsFrom: 'user', asks the person in the field's words and tells the model the fields", () => {
    const hint = { missingFields: ['order_id'], missingFieldLabels: ['your order number, like A-1001'] };
    const asked = turnResulting(
      start({ missingFieldsFrom: 'user' }).state,
      [checked(refund)],
      (c) => failed(c, 'missing_fields', hint),
      1_000,
    );
    const question = asked.state.clarification!.question;
    expect(question).toBe('I need a bit more information: your order number, like A-1001. Could you provide it?');
    expect(question).not.toMatch(/refund|order_id/);
    expect(planClarificationAnswer(asked.state, 'A-1001', 2_000).notes).toEqual([
      `The user answered your question "${question}" (asked for refund's missing order_id): A-1001`,
    ]);
  });
});

describe('cancel', () => {
  it('ends a wait with a forced final turn; the finished run reports the reason', () => {
    const waiting = turnResulting(
      start().state,
      [checked(refund)],
      (c) => failed(c, 'missing_fields', { clarifyingQuestion: 'Which?' }),
      1_000,
    );
    const plan = planCancel(waiting.state, 'cancelled by a user', 4_000);
    expect(plan.step).toEqual({ type: 'call_model', toolChoice: 'none', tools: [] });
    expect(plan.notes).toEqual([finalNote('cancelled by a user')]);
    expect(plan.state).toMatchObject({ clarification: null, humanWaitMs: 3_000, phase: 'finalizing' });
    const done = afterModel(plan.state, textReply('Stopped as asked.'));
    expect(done.step).toEqual({ type: 'finish', answer: 'Stopped as asked.', reason: 'cancelled by a user' });
  });

  // Regression: planCancel drops a batch in progress (during a review, a back-off, or before its calls ran)
  // without recording results, so the transcript has an assistant tool call with no tool message;
  // providers reject that on the final turn (plan-model-outcome.ts notes every call must be answered).
  it('during a review, still answers every call of the batch, in call order', () => {
    const plan = planCancel(awaitingReview().state, 'cancelled by a user', 2_000);
    expect(plan.record.map((r) => r.toolCallId)).toEqual(['1.1', '1.2']);
    expect(plan.record.every((r) => r.status === 'error')).toBe(true);
  });

  it('during a review, leaves nothing pending', () => {
    const plan = planCancel(awaitingReview().state, 'cancelled by a user', 2_000);
    expect(plan.state).toMatchObject({ reviews: [], waitingRuns: [], batch: null });
  });
});

describe('what the model is told of a review', () => {
  it("an edit or a response is said in a note after the batch's results, never between a call and its result", () => {
    const trace = drive({
      model: [
        toolCallsReply([rawCall('refund', { order_id: 'A-17', amount: 120 }), rawCall('lookup', { order_id: 'A-17' })]),
        textReply('done'),
      ],
      needsApproval: (c) => c.name === 'refund',
      tool: (c) => ok(c),
      review: (reviews) =>
        Object.fromEntries(
          reviews.map((r) => [
            r.toolCallId,
            {
              type: 'edit',
              args: { order_id: 'A-17', amount: 100 },
              argsHash: argsHash({ order_id: 'A-17', amount: 100 }),
            },
          ]),
        ),
    });
    expect(trace.transcript.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool', 'user', 'assistant']);
    expect(trace.transcript[3]).toEqual({
      role: 'user',
      content:
        '[cairn] A reviewer edited your refund call 1.1: it ran with {"order_id":"A-17","amount":100}, not {"order_id":"A-17","amount":120}.',
    });
  });
});

describe('how long a person has, and pauses', () => {
  const asked = (policy = {}) =>
    turnResulting(
      start(policy).state,
      [checked(refund)],
      (c) => failed(c, 'missing_fields', { clarifyingQuestion: 'Which?' }),
      1_000,
    ).state;

  it('a question waits for ever without a timeout; with one, the time left counts from when it was asked, at least 1 ms', () => {
    expect(clarificationTimeLeft(asked(), 50_000)).toBeNull();
    const state = asked({ clarificationTimeoutMs: 10_000 });
    expect(clarificationTimeLeft(state, 1_000)).toBe(10_000);
    expect(clarificationTimeLeft(state, 4_000)).toBe(7_000);
    expect(clarificationTimeLeft(state, 11_000)).toBe(1);
    expect(clarificationTimeLeft(state, 99_000)).toBe(1);
    expect(clarificationTimeLeft({ ...state, waitingSince: null }, 99_000)).toBe(10_000);
  });

  it("a pause is a person's time: it does not count against the budget, and a question's clock stops meanwhile", () => {
    const state = asked({ clarificationTimeoutMs: 10_000 });
    const resumed = planResumed(state, 5_000);
    expect(resumed).toMatchObject({ humanWaitMs: state.humanWaitMs + 5_000, waitingSince: 6_000 });
    expect(clarificationTimeLeft(resumed, 9_000)).toBe(7_000);
    const idle = planResumed(start().state, 5_000);
    expect(idle).toMatchObject({ humanWaitMs: 5_000, waitingSince: null });
  });
});

describe('reviews and cancel: what the model is told', () => {
  it('a respond decision is explained in a note; a rejection tells the model not to retry blindly', () => {
    const responded = decide({ type: 'respond', content: 'no' });
    const done = planResume(responded.state, [ok(search)], 6_000);
    expect(done.notes).toContain(
      "A reviewer answered your refund call 1.1 instead of running it: its result is the reviewer's response, and nothing ran.",
    );
    const rejected = planReviewed(
      turnWith(start().state, [checked(refund, { needsApproval: true })]).state,
      { '1.1': { type: 'reject' } },
      0,
    );
    expect(rejected.record[0]).toMatchObject({
      retryHint: { message: 'Do not call it again with the same arguments; use the reason to choose what to do.' },
    });
  });

  it('an edit note shows at most 300 characters of each argument list', () => {
    const long = { order_id: 'A-17', note: 'n'.repeat(400) };
    const plan = decide({ type: 'edit', args: long, argsHash: argsHash(long) });
    const done = planResume(plan.state, [ok(search), ok({ ...refund, args: long })], 6_000);
    const note = done.notes.find((n) => n.startsWith('A reviewer edited'))!;
    expect(note).toBe(
      `A reviewer edited your refund call 1.1: it ran with ${JSON.stringify(long).slice(0, 300)}…, not ${JSON.stringify(refund.args)}.`,
    );
  });

  it('cancel keeps the results that came, and refuses only the calls that did not run, saying why', () => {
    const admitted = turnWith(start().state, [checked(refund), checked(search)]);
    const half = { ...admitted.state, batch: { ...admitted.state.batch!, results: { '1.2': ok(search) } } };
    const plan = planCancel(half, 'stopped by ops', 0);
    expect(plan.record[1]).toEqual(ok(search));
    expect(plan.record[0]).toMatchObject({
      toolCallId: '1.1',
      error: { code: 'cancelled', message: 'Not run: the run was cancelled (stopped by ops).' },
    });
    expect(plan.state).toMatchObject({ batch: null, reviews: [], waitingRuns: [], clarification: null });
    expect(planCancel(start().state, 'x', 0).record).toEqual([]);
  });

  it('decisions without a batch in progress are a workflow bug', () => {
    expect(() => planReviewed(start().state, {}, 0)).toThrow('planReviewed: no batch in progress');
  });

  it('an answer to a question already cleared still reaches the model', () => {
    const plan = planClarificationAnswer(start().state, 'yes', 0);
    expect(plan.notes).toEqual(['The user answered your question "": yes']);
    const timedOut = planClarificationTimeout({ ...start({ onClarificationTimeout: 'continue' }).state }, 0);
    expect(timedOut.notes).toEqual(['Nobody answered "" in time. Continue without it, or say what you cannot do.']);
  });
});

describe('the plain data a human decision leaves', () => {
  it("a review keeps the batch's earlier notes, and a batch without notes gets none", () => {
    const waiting = awaitingReview().state;
    const noted = { ...waiting, batch: { ...waiting.batch!, notes: ['earlier'] } };
    expect(planReviewed(noted, { '1.1': { type: 'accept' } }, 5_000).state.batch?.notes).toEqual(['earlier']);
    expect(decide({ type: 'accept' }).state.batch).not.toHaveProperty('notes');
  });

  it("an edit changes only the edited call's entry", () => {
    const args = { order_id: 'A-17', amount: 60 };
    const plan = decide({ type: 'edit', args, argsHash: argsHash(args) });
    expect(plan.state.batch?.entries.map((e) => e.call)).toEqual([{ ...refund, args }, search]);
    expect(plan.state.batch?.entries[1]?.key).toBe(keyOf(search));
  });

  it('an edit note shows arguments of exactly 300 characters whole', () => {
    const args = { n: 'x'.repeat(292) };
    expect(JSON.stringify(args)).toHaveLength(300);
    const plan = decide({ type: 'edit', args, argsHash: argsHash(args) });
    expect(plan.state.batch?.notes).toEqual([
      `A reviewer edited your refund call 1.1: it ran with ${JSON.stringify(args)}, not ${JSON.stringify(refund.args)}.`,
    ]);
  });

  it('a timed-out question forces a final turn coded no_answer that records nothing', () => {
    const plan = planClarificationTimeout({ ...start().state, clarification: { id: 'q1', question: 'Which?' } }, 0);
    expect(plan.record).toEqual([]);
    expect(plan.state).toMatchObject({ finalizing: 'no answer to "Which?" in time', finalizingCode: 'no_answer' });
  });

  it('cancel records each held result under its own call, codes the run cancelled, and leaves no review even on a final turn', () => {
    const admitted = turnWith(start().state, [checked(refund), checked(search)]);
    const held = { ...admitted.state, batch: { ...admitted.state.batch!, reconciling: [ok(search), ok(refund)] } };
    const plan = planCancel(held, 'stopped', 0);
    expect(plan.record).toEqual([ok(refund), ok(search)]);
    expect(plan.state.finalizingCode).toBe('cancelled');
    const reviewing = awaitingReview().state;
    const final = planCancel({ ...reviewing, finalizing: 'max turns (3) reached' }, 'stopped', 0);
    expect(final.state.reviews).toEqual([]);
  });
});

describe("checkReview: the run's gate for a review decision", () => {
  const refundTool = () =>
    new Map<string, AnyTool>([
      [
        'refund',
        defineTool({
          name: 'refund',
          description: 'Refund an order.',
          input: z.object({ order_id: z.string(), amount: z.number().positive() }),
          execute: () => 'refunded',
        }) as AnyTool,
      ],
    ]);
  const pending: PendingReview = {
    toolCallId: '1.1',
    name: 'refund',
    args: refund.args,
    argsHash: argsHash(refund.args),
  };
  const sent = (decision: object, over: object = {}) => ({
    toolCallId: '1.1',
    argsHash: pending.argsHash,
    decision: decision as ReviewDecisionInput,
    ...over,
  });
  type Args = Parameters<typeof checkReview>;
  const gate = (p: Args[0], d: Args[1], t: Args[2], i: Args[3], repeat: Args[4] = 'refuse') =>
    checkReview(p, d, t, i, repeat);
  const refused = (checked: ReturnType<typeof checkReview>) =>
    checked.ok ? 'taken' : { message: checked.message, code: checked.code };

  it('takes each decision the review allows, as the planner acts on it, with what was sent', () => {
    for (const decision of [
      { type: 'accept' },
      { type: 'reject', reason: 'too much' },
      { type: 'respond', content: { refunded: 0 } },
    ] as const)
      expect(gate([pending], {}, refundTool(), sent(decision))).toEqual({
        ok: true,
        value: { argsHash: pending.argsHash, decision, sent: JSON.stringify(decision) },
      });
    const edit = { type: 'edit', args: { order_id: 'A-17', amount: 60 } };
    expect(gate([pending], {}, refundTool(), sent(edit))).toEqual({
      ok: true,
      value: {
        argsHash: pending.argsHash,
        decision: { ...edit, argsHash: argsHash(edit.args) },
        sent: JSON.stringify(edit),
      },
    });
  });

  it('refuses what is not a decision on a pending call, naming why', () => {
    for (const input of [null, {}, { toolCallId: 1, decision: { type: 'accept' } }, { toolCallId: '1.1' }])
      expect(refused(gate([pending], {}, refundTool(), input as never))).toEqual({
        message: 'Expected { toolCallId, argsHash, decision }.',
        code: 'invalid_input',
      });
    expect(refused(gate([pending], {}, refundTool(), sent({ type: 'accept' }, { toolCallId: '9.9' })))).toEqual({
      message: 'No review is pending for tool call "9.9".',
      code: 'not_pending',
    });
    // Own keys only: a toolCallId of `__proto__` names no decision.
    expect(refused(gate([], {}, refundTool(), sent({ type: 'accept' }, { toolCallId: '__proto__' })))).toMatchObject({
      code: 'not_pending',
    });
    expect(refused(gate([pending], {}, refundTool(), sent({ type: 'accept' }, { argsHash: 'h0' })))).toEqual({
      message: `Stale decision: tool call 1.1 has arguments ${pending.argsHash}, not h0.`,
      code: 'stale_review',
    });
  });

  it('refuses a decision too large for history, or that is no decision, or that the review does not allow', () => {
    const big = { type: 'respond', content: 'x'.repeat(MAX_HUMAN_INPUT_CHARS) };
    expect(refused(gate([pending], {}, refundTool(), sent(big)))).toEqual({
      message: `The decision is larger than ${MAX_HUMAN_INPUT_CHARS} characters of JSON (or is not JSON); send a shorter one.`,
      code: 'invalid_input',
    });
    // Exactly the limit, as JSON: taken.
    const fits = { type: 'respond', content: 'x'.repeat(MAX_HUMAN_INPUT_CHARS - 31) };
    expect(gate([pending], {}, refundTool(), sent(fits)).ok).toBe(true);
    const cyclic: Record<string, unknown> = { type: 'respond' };
    cyclic.content = cyclic;
    expect(refused(gate([pending], {}, refundTool(), sent(cyclic)))).toMatchObject({
      message: expect.stringMatching(/^The decision is larger than/),
    });
    expect(refused(gate([pending], {}, refundTool(), sent({ type: 'approve' })))).toMatchObject({
      message: expect.stringMatching(/^A decision is/),
      code: 'invalid_input',
    });
    const narrow = { ...pending, allowed: ['accept', 'reject'] as const };
    expect(refused(gate([narrow], {}, refundTool(), sent({ type: 'edit', args: {} })))).toEqual({
      message: 'refund does not allow "edit" in review; allowed: accept, reject.',
      code: 'invalid_input',
    });
    expect(
      refused(gate([pending], {}, refundTool(), sent({ type: 'edit', args: { order_id: 'A-17', amount: -1 } }))),
    ).toMatchObject({
      message:
        'The edited arguments are invalid for refund: `amount` must be > 0, not -1. Correct the edit and submit it again.',
      code: 'invalid_input',
    });
  });

  it('once a decision counted, refuses any other, naming it; the handler takes the same one again as a no-op', () => {
    const decided = {
      '1.1': { argsHash: pending.argsHash, decision: { type: 'accept' as const }, sent: '{"type":"accept"}' },
    };
    // The review closed (the planner acted on it): the decision is still known.
    expect(refused(gate([], decided, refundTool(), sent({ type: 'accept' })))).toEqual({
      message: 'Tool call 1.1 was already decided: {"type":"accept"} counted.',
      code: 'already_decided',
    });
    // What counted is named, cut to 300 characters.
    const long = { type: 'reject' as const, reason: 'r'.repeat(400) };
    const longSent = JSON.stringify(long);
    const taken = { '1.1': { argsHash: pending.argsHash, decision: long, sent: longSent } };
    expect(refused(gate([], taken, refundTool(), sent({ type: 'accept' })))).toMatchObject({
      message: `Tool call 1.1 was already decided: ${longSent.slice(0, 300)} counted.`,
    });
    expect(gate([], decided, refundTool(), sent({ type: 'accept' }), 'ignore')).toEqual({
      ok: true,
      value: undefined,
    });
    expect(refused(gate([pending], decided, refundTool(), sent({ type: 'reject' }), 'ignore'))).toMatchObject({
      code: 'already_decided',
    });
    // A stale hash is stale even for a call already decided.
    expect(refused(gate([], decided, refundTool(), sent({ type: 'accept' }, { argsHash: 'h0' })))).toMatchObject({
      code: 'stale_review',
    });
  });
});
