/**
 * A human's part in a run: clarification answers and timeouts, review decisions — the run's gate
 * for each one (`checkReview`, in the Update validator, before anything enters history) and what
 * the decided ones do (`planReviewed`) — pauses and cancel. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../shared/json/json.js';
import { toolError } from '../shared/failures/tool-error.js';
import { errorResult, NO_TELEMETRY, type ToolResult } from '../shared/tools/tool-result.js';
import { callKey } from '../shared/identity/call-key.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import { assertNever } from '../shared/assert-never.js';
import { completeBatch } from './complete-batch.js';
import { keyOnceCalls } from './once-keys.js';
import { callModel, endWait, finalize, refusal } from './plan-common.js';
import type { Batch, Plan, PlannerState } from './plan.js';
import {
  allowedDecisions,
  parseReviewDecision,
  type DecidedReview,
  type ReviewDecision,
  type ReviewDecisionInput,
} from '../shared/human-input/review-decision.js';
import type { AnyTool } from '../shared/tools/define-tool.js';
import { argsHash } from '../shared/identity/hash.js';
import { checkToolCall, editRefusalMessage } from '../shared/guards/validate-arguments.js';
import { MAX_HUMAN_INPUT_CHARS } from '../shared/size-limits.js';
import { summariseIssues } from '../shared/guards/zod-issues.js';
import type { PendingReview } from '../shared/human-input/pending-review.js';
import { refuse, type Checked } from '../shared/human-input/refusal.js';

/**
 * How long the pending question may still wait, in ms; null when it waits for ever. Measured from
 * when it was asked, so a continue-as-new or a pause does not restart the clock. At least 1 ms.
 */
export function clarificationTimeLeft(state: PlannerState, now: number): number | null {
  const timeout = state.policy.clarificationTimeoutMs;
  if (timeout === null) return null;
  return Math.max(1, timeout - (now - (state.waitingSince ?? now)));
}

/**
 * The run was held for `pausedMs`: that time is a human's, so it does not count against the time
 * budget, and a pending question's clock stops while paused.
 */
export function planResumed(state: PlannerState, pausedMs: number): PlannerState {
  return {
    ...state,
    humanWaitMs: state.humanWaitMs + pausedMs,
    ...(state.waitingSince !== null && { waitingSince: state.waitingSince + pausedMs }),
  };
}

export function planClarificationAnswer(state: PlannerState, answer: JsonValue, now: number): Plan {
  const question = state.clarification;
  const next = { ...endWait(state, now), clarification: null };
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  return callModel(next, 'auto', [
    `The user answered your question "${question?.question ?? ''}"${askedFor(question)}: ${text}`,
  ]);
}

/**
 * What the question was for, in the model's terms: the person's question names no tool and no
 * field name (complete-batch.ts, `missingFieldsQuestion`), the model needs both to use the answer.
 */
function askedFor(question: PlannerState['clarification']): string {
  const fields = question?.missingFields ?? [];
  return question?.tool && fields.length > 0 ? ` (asked for ${question.tool}'s missing ${fields.join(', ')})` : '';
}

export function planClarificationTimeout(state: PlannerState, now: number): Plan {
  const question = state.clarification?.question ?? '';
  const next = { ...endWait(state, now), clarification: null };
  if (state.policy.onClarificationTimeout === 'finalize')
    return finalize(next, `no answer to "${question}" in time`, [], [], 'no_answer');
  return callModel(next, 'auto', [
    `Nobody answered "${question}"${askedFor(state.clarification)} in time. Continue without it, or say what you cannot do.`,
  ]);
}

/**
 * The run's gate (its Update validator and handler): one decision checked against what only the
 * run knows — the review is pending, the arguments hash is current, the tool allows the decision,
 * an edit's arguments fit the tool. Returns the planner's form of it, with the arguments hash it is about
 * and the decision as sent. A decision for other arguments (stale hash) fails closed; once a
 * decision counted, any other — the same decision again from someone else included — is refused
 * `already_decided`, naming the one that counted (`repeat: 'ignore'` makes the same decision a no-op
 * instead: the handler's own check, which replays older histories where a repeat was taken).
 */
const NO_RECHECK: ReadonlySet<string> = new Set();

export function checkReview(
  pending: readonly PendingReview[],
  decided: Readonly<Record<string, DecidedReview>>,
  tools: ReadonlyMap<string, AnyTool>,
  input: { readonly toolCallId: string; readonly argsHash: string; readonly decision: ReviewDecisionInput },
  repeat: 'refuse' | 'ignore',
  /** Held calls whose agent changed since (an upgrade): an accept checks their arguments again. */
  recheck: ReadonlySet<string> = NO_RECHECK,
): Checked<DecidedReview | undefined> {
  if (typeof input?.toolCallId !== 'string' || !input.decision)
    return refuse('Expected { toolCallId, argsHash, decision }.');
  // Own keys only: a toolCallId of `__proto__` or `constructor` names no decision.
  const previous = Object.hasOwn(decided, input.toolCallId) ? decided[input.toolCallId] : undefined;
  const review = pending.find((r) => r.toolCallId === input.toolCallId);
  if (!review && !previous)
    return refuse(`No review is pending for tool call "${String(input.toolCallId)}".`, 'not_pending');
  const expected = review?.argsHash ?? previous!.argsHash;
  if (input.argsHash !== expected)
    return refuse(
      `Stale decision: tool call ${input.toolCallId} has arguments ${expected}, not ${String(input.argsHash)}.`,
      'stale_review',
    );
  // Bounded first: the decision enters history, the state and the transcript.
  const sent = jsonText(input.decision);
  if (sent === undefined || sent.length > MAX_HUMAN_INPUT_CHARS)
    return refuse(
      `The decision is larger than ${MAX_HUMAN_INPUT_CHARS} characters of JSON (or is not JSON); send a shorter one.`,
    );
  if (previous) {
    if (previous.sent === sent && repeat === 'ignore') return { ok: true, value: undefined };
    return refuse(
      `Tool call ${input.toolCallId} was already decided: ${previous.sent.slice(0, 300)} counted.`,
      'already_decided',
    );
  }
  const decision = toDecision(review!, tools, input.decision, recheck.has(review!.toolCallId));
  return decision.ok ? { ok: true, value: { argsHash: expected, decision: decision.value, sent } } : decision;
}

function toDecision(
  review: PendingReview,
  tools: ReadonlyMap<string, AnyTool>,
  sent: ReviewDecisionInput,
  recheck: boolean,
): Checked<ReviewDecision> {
  const parsed = parseReviewDecision(sent);
  if (!parsed.ok) return refuse(parsed.message);
  const d = parsed.value;
  const allowed = allowedDecisions(review);
  if (!allowed.includes(d.type))
    return refuse(`${review.name} does not allow "${d.type}" in review; allowed: ${allowed.join(', ')}.`);
  switch (d.type) {
    case 'accept': {
      if (!recheck) return { ok: true, value: d };
      // Held by the agent's previous version: its new schema may not take these arguments.
      const checked = checkToolCall(
        { name: review.name, arguments: JSON.stringify(review.args) },
        [...tools.values()],
        {
          toolCallId: review.toolCallId,
        },
      );
      if (!checked.failure) return { ok: true, value: d };
      const issues = checked.failure.retryHint?.issues ?? [];
      return refuse(
        `The agent changed since this ${review.name} call was held, and its arguments no longer fit it${issues.length > 0 ? `: ${summariseIssues(issues, 3).replace(/\bthe input\b/, 'the arguments')}` : ''}. Edit them, or reject the call.`,
        'stale_review',
      );
    }
    case 'reject':
    case 'respond':
      return { ok: true, value: d };
    case 'edit': {
      const checked = checkToolCall(
        { name: review.name, arguments: JSON.stringify(d.args ?? null) },
        [...tools.values()],
        { toolCallId: review.toolCallId },
      );
      if (checked.failure) return refuse(editRefusalMessage(checked.failure));
      return { ok: true, value: { type: 'edit', args: checked.call.args, argsHash: argsHash(checked.call.args) } };
    }
    default:
      return assertNever(d, 'review decision');
  }
}

/** `value` as JSON text, or undefined when it has none (too deep for the stack, a cycle). */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * Pending reviews are decided: accepted and edited calls run (with the batch's other calls),
 * `respond` becomes the call's result, `reject` tells the model why. With policy `whileReviewing:
 * 'run_others'` each held call goes as its own decision comes: the undecided stay pending (and may
 * be decided while the decided ones run); otherwise all are decided (a missing one is a rejection).
 */
export function planReviewed(
  state: PlannerState,
  decisions: Readonly<Record<string, ReviewDecision>>,
  now: number,
): Plan {
  const batch = state.batch;
  if (!batch) throw new Error('planReviewed: no batch in progress');
  const results: Record<string, ToolResult> = { ...batch.results };
  const toRun: ToolCall[] = [...state.waitingRuns];
  // What a reviewer changed, told to the model with the batch's results (never between a call and its result).
  const notes: string[] = [...(batch.notes ?? [])];
  let entries = batch.entries;
  const eachAlone = state.policy.whileReviewing === 'run_others';
  const undecided = eachAlone ? state.reviews.filter((r) => !Object.hasOwn(decisions, r.toolCallId)) : [];
  for (const review of state.reviews) {
    if (undecided.includes(review)) continue;
    const decision = decisions[review.toolCallId] ?? { type: 'reject', reason: 'no decision' };
    const call = entries.find((e) => e.call.toolCallId === review.toolCallId)!.call;
    switch (decision.type) {
      case 'accept':
        toRun.push(call);
        break;
      case 'edit': {
        const edited = { ...call, args: decision.args };
        entries = entries.map((e) =>
          e.call.toolCallId === call.toolCallId
            ? { ...e, call: edited, key: callKey(call.name, decision.argsHash), argsHash: decision.argsHash }
            : e,
        );
        toRun.push(edited);
        notes.push(
          `A reviewer edited your ${call.name} call ${call.toolCallId}: it ran with ${clip(decision.args)}, not ${clip(call.args)}.`,
        );
        break;
      }
      case 'respond':
        results[call.toolCallId] = {
          status: 'ok',
          name: call.name,
          toolCallId: call.toolCallId,
          result: decision.content,
          telemetry: NO_TELEMETRY,
        };
        notes.push(
          `A reviewer answered your ${call.name} call ${call.toolCallId} instead of running it: its result is the reviewer's response, and nothing ran.`,
        );
        break;
      case 'reject':
        results[call.toolCallId] = rejected(call, decision.reason);
        break;
      default:
        // Stryker disable next-line all: unreachable, tsc proves every variant handled
        assertNever(decision, 'review decision');
    }
  }
  const settled: Batch = { entries, results, ...(notes.length > 0 && { notes }) };
  if (undecided.length > 0 && toRun.length === 0)
    // Nothing to run yet: the others still wait, and so does the run.
    return {
      state: { ...state, reviews: undecided, batch: settled },
      step: { type: 'await_review', reviews: undecided },
      record: [],
      notes: [],
    };
  const next: PlannerState = { ...endWait(state, now), reviews: undecided, waitingRuns: [], batch: settled };
  if (toRun.length > 0)
    return {
      state: { ...keyOnceCalls(next, toRun), phase: 'tools' },
      step: { type: 'execute_tools', calls: toRun },
      record: [],
      notes: [],
    };
  return completeBatch(next, now);
}

/** Arguments as a note shows them: JSON, cut short. */
function clip(args: JsonValue): string {
  const text = JSON.stringify(args);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function rejected(call: ToolCall, reason: string | undefined): ToolResult {
  const message = `A human reviewer rejected this call, so it did not run${reason ? `: ${reason}` : '.'}`;
  return errorResult(call, toolError('rejected_by_human', message), {
    message: 'Do not call it again with the same arguments; use the reason to choose what to do.',
  });
}

/** Cancel: a final model turn with no tools. Any pending wait ends. */
export function planCancel(state: PlannerState, reason: string, now: number): Plan {
  // Every call the model made must be answered in the transcript: unrun ones are refused.
  // Results held for reconciling (plan-reconcile.ts) ran: they are recorded as they came back.
  const record = (state.batch?.entries ?? []).map(
    ({ call }) =>
      state.batch!.results[call.toolCallId] ??
      state.batch!.reconciling?.find((r) => r.toolCallId === call.toolCallId) ??
      refusal(call, 'cancelled', `Not run: the run was cancelled (${reason}).`),
  );
  const next = { ...endWait(state, now), clarification: null, reviews: [], waitingRuns: [], batch: null };
  return finalize(next, reason, [], record, 'cancelled');
}
