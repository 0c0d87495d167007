/**
 * What people send a run, held until the loop acts on it: an answer to the pending question,
 * review decisions, pause/resume and cancel. Installs the message handlers; Update validators
 * refuse bad input before it enters history, Signals (which cannot be refused) are taken only when
 * valid. Workflow code (sandbox), deterministic.
 */
import { setHandler } from '@temporalio/workflow';
import type { AnyTool } from '../shared/tools/define-tool.js';
import type { JsonValue } from '../shared/json/json.js';
import type { DecidedReview, ReviewDecision } from '../shared/human-input/review-decision.js';
import { checkReview, type PlannerState } from '../planner/index.js';
import { accepted, HumanInputError } from './human-input.js';
import { checkAnswer } from '../shared/human-input/answer.js';
import {
  answerClarificationSignal,
  answerClarificationUpdate,
  cancelSignal,
  pauseSignal,
  resumeSignal,
  reviewToolCallSignal,
  reviewToolCallUpdate,
  type ClarificationAnswer,
  type ReviewInput,
} from './contract/human-messages.js';
import type { CarriedRun } from './contract/agent-run.js';
import type { ChildRuns } from './child-runs.js';
import type { HumanKind } from './contract/run-event.js';

/**
 * A run hands over (continue-as-new) once it has taken this many Signals, when it can: half of what
 * Cairn's dev servers let one run take (runtime/embedded-server.ts, MAX_SIGNALS_PER_RUN), so people
 * and child runs can always reach it, and a flood of large Signals never grows one history to
 * Temporal's 50 MB limit.
 */
export const HAND_OVER_AFTER_SIGNALS = 5;

/** A cancel reason longer than this is cut: it becomes the run's finishing reason and a note to the model. */
const MAX_CANCEL_REASON_CHARS = 500;

/**
 * Decisions on reviews already closed that the next run of a chain still knows, so a repeat sent
 * across a hand-over is a no-op or `already_decided`, not `not_pending`: the newest ones, at most
 * this many and this many characters of JSON (one decision may be 20,000: MAX_HUMAN_INPUT_CHARS).
 * Without a bound every decision of the chain was carried into every continue-as-new.
 */
export const MAX_CARRIED_CLOSED_DECISIONS = 16;
export const MAX_CARRIED_CLOSED_DECISION_CHARS = 20_000;

export class RunInbox {
  /** An accepted answer not yet acted on; carried across continue-as-new so none is lost. */
  answer: JsonValue | undefined;
  readonly decisions: Record<string, DecidedReview>;
  paused = false;
  cancelReason: string | null = null;
  /** Signals this run has taken, valid or not: each entered its history (a run hands over after HAND_OVER_AFTER_SIGNALS). */
  signalsTaken = 0;
  /** Resolves with the reason once the run is cancelled (child runs are told then). */
  readonly cancelled: Promise<string>;
  #cancel: (reason: string) => void = () => {};
  /** The last question answered here: a later answer to it is `already_decided`, not `not_pending`. */
  #answered: { readonly id: string; readonly text: string } | undefined;

  constructor(carried: CarriedRun | undefined) {
    this.answer = carried?.answer;
    this.decisions = { ...carried?.decisions };
    this.paused = carried?.paused ?? false;
    this.cancelled = new Promise((resolve) => (this.#cancel = resolve));
  }

  /** Cancels the run, once: the first reason stands. */
  cancel(reason: string): void {
    if (this.cancelReason !== null) return;
    this.cancelReason = reason;
    this.#cancel(reason);
  }

  /**
   * Installs the handlers; `state` reads the planner state the run has now. Answers and decisions
   * whose id names a child run's (`2.1/q1`) are checked against the child's and sent on to it.
   */
  /** Held calls whose agent changed since (the run moved to a newer build): an accept checks their arguments again. */
  #recheck: ReadonlySet<string> = new Set();

  heldBeforeUpgrade(toolCallIds: readonly string[]): void {
    this.#recheck = new Set(toolCallIds);
  }

  install(
    state: () => PlannerState,
    tools: ReadonlyMap<string, AnyTool>,
    children: ChildRuns,
    heard: (kind: HumanKind, id: string, detail: JsonValue) => void = () => {},
  ): void {
    const validateAnswer = (a: ClarificationAnswer) => {
      const to = children.route(a?.id);
      if (to) return children.checkAnswer(to, a);
      // A second answer would silently replace the first, and its sender would never know.
      if (
        this.answer !== undefined ||
        (a && typeof a === 'object' && a.id === this.#answered?.id && state().clarification?.id !== a.id)
      )
        throw new HumanInputError(
          `Question ${String(a?.id)} was already answered: ${this.#answered?.text ?? 'an answer'} counted.`,
          'already_decided',
        );
      accepted(checkAnswer(state().clarification, a, tools));
    };
    const takeAnswer = async (a: ClarificationAnswer) => {
      heard('answer', a.id, a.answer);
      const to = children.route(a.id);
      if (to) await children.forwardAnswer(to, a.answer);
      else {
        this.answer ??= a.answer;
        this.#answered = { id: a.id, text: JSON.stringify(a.answer).slice(0, 300) };
      }
    };
    const validateReview = (r: ReviewInput) => {
      const to = children.route(r?.toolCallId);
      if (to) return children.checkReview(to, r);
      accepted(checkReview(state().reviews, this.decisions, tools, r, 'refuse', this.#recheck));
    };
    const takeReview = async (r: ReviewInput) => {
      heard('review', r.toolCallId, r.decision as JsonValue);
      const to = children.route(r.toolCallId);
      if (to) return children.forwardReview(to, r);
      const decided = accepted(checkReview(state().reviews, this.decisions, tools, r, 'ignore', this.#recheck));
      if (decided) this.decisions[r.toolCallId] = decided; // undefined: the same decision again, a no-op
    };
    setHandler(answerClarificationUpdate, takeAnswer, {
      validator: validateAnswer,
      description: 'Answer the pending clarification: { id, answer }.',
    });
    setHandler(reviewToolCallUpdate, takeReview, {
      validator: validateReview,
      description: 'Decide a pending tool call: accept, edit (new args), respond (content), reject (reason).',
    });
    // Signals cannot be refused; an invalid one is dropped and what it was about stays open.
    setHandler(
      answerClarificationSignal,
      (a: ClarificationAnswer) => (this.signalsTaken++, ignoreRefused(validateAnswer, takeAnswer, a)),
    );
    setHandler(
      reviewToolCallSignal,
      (r: ReviewInput) => (this.signalsTaken++, ignoreRefused(validateReview, takeReview, r)),
    );
    setHandler(pauseSignal, () => {
      this.signalsTaken++;
      if (!this.paused) heard('pause', '', null);
      this.paused = true;
    });
    setHandler(resumeSignal, () => {
      this.signalsTaken++;
      if (this.paused) heard('resume', '', null);
      this.paused = false;
    });
    // Signals cannot be refused, and a handler that throws would wedge the run: take any payload.
    setHandler(cancelSignal, (reason?: unknown) => {
      this.signalsTaken++;
      const text = typeof reason === 'string' ? reason.trim().slice(0, MAX_CANCEL_REASON_CHARS) : '';
      if (this.cancelReason === null) heard('cancel', '', text || 'cancelled by a user');
      this.cancel(text || 'cancelled by a user');
    });
  }

  /** Paused and not cancelled: a cancel overrides a pause. */
  holding(): boolean {
    return this.paused && this.cancelReason === null;
  }

  /** The accepted answer, consumed: the validator only admits answers to the pending id. */
  takeAnswer(): JsonValue | undefined {
    const answer = this.answer;
    this.answer = undefined;
    return answer;
  }

  /**
   * True when the planner can act on the pending reviews: every one has a decision, or (policy
   * `whileReviewing: 'run_others'`, where each held call goes as its decision comes) one has.
   */
  decided(state: PlannerState): boolean {
    const has = (r: PlannerState['reviews'][number]) => Object.hasOwn(this.decisions, r.toolCallId);
    return state.policy.whileReviewing === 'run_others' ? state.reviews.some(has) : state.reviews.every(has);
  }

  /** The planner's form of the decisions taken. */
  reviewDecisions(): Record<string, ReviewDecision> {
    return Object.fromEntries(Object.entries(this.decisions).map(([id, d]) => [id, d.decision]));
  }

  /** True when the run waits for a person to act on it (untilIdle returns then; children count too). */
  awaitsPerson(state: PlannerState): boolean {
    return (
      (state.phase === 'awaiting_clarification' && this.answer === undefined) ||
      (state.phase === 'awaiting_review' && state.reviews.some((r) => !this.decisions[r.toolCallId]))
    );
  }

  /** What the next run of the chain must still act on (`state`: the planner state it hands over with). */
  carried(state: PlannerState): Pick<CarriedRun, 'answer' | 'decisions' | 'paused'> {
    const decisions = carriedDecisions(
      this.decisions,
      state.reviews.map((r) => r.toolCallId),
    );
    return {
      ...(this.paused && { paused: true }),
      ...(this.answer !== undefined && { answer: this.answer }),
      ...(Object.keys(decisions).length > 0 && { decisions }),
    };
  }
}

/**
 * The decisions a continue-as-new carries: every one on a review still pending (the next run acts
 * on it), and of the others only the newest that fit MAX_CARRIED_CLOSED_DECISIONS and
 * MAX_CARRIED_CLOSED_DECISION_CHARS (to know a repeat). In the order they were taken. Deterministic.
 */
export function carriedDecisions(
  decisions: Readonly<Record<string, DecidedReview>>,
  pending: readonly string[],
): Record<string, DecidedReview> {
  const open = new Set(pending);
  const entries = Object.entries(decisions);
  const kept = new Set(entries.filter(([id]) => open.has(id)).map(([id]) => id));
  let count = 0;
  let chars = 0;
  for (const [id, decided] of entries.filter(([id]) => !open.has(id)).reverse()) {
    chars += JSON.stringify(decided).length;
    if (++count > MAX_CARRIED_CLOSED_DECISIONS || chars > MAX_CARRIED_CLOSED_DECISION_CHARS) break;
    kept.add(id);
  }
  return Object.fromEntries(entries.filter(([id]) => kept.has(id)));
}

/** A Signal's input, taken when it passes the check that would refuse it as an Update. */
async function ignoreRefused<T>(check: (input: T) => void, take: (input: T) => Promise<void>, input: T): Promise<void> {
  try {
    check(input);
  } catch {
    return; // visible in history as the Signal itself
  }
  await take(input);
}
