/**
 * The people of an evaluated run: what it asks is answered from the recording (answers by question,
 * review decisions by tool and argument hash, budget decisions in order); what the recording does
 * not answer is a `NewAsk`, and the run is cancelled there, the asks written into the cancel's
 * reason so that a run reused by a later evaluation still says whom it would have asked. Node-only.
 */
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { EvalLane } from '../../shared/eval/define-eval.js';
import type { EvalEvent, Recording } from '../../shared/eval/recording.js';
import type { JsonValue } from '../../shared/json/json.js';
import {
  answerClarificationUpdate,
  cancelSignal,
  extendBudgetUpdate,
  resumeSignal,
  reviewToolCallUpdate,
  untilIdleUpdate,
  type AgentRunWorkflow,
  type RunState,
} from '../../workflows/contract/index.js';
import type { NewAsk } from './eval-results.js';

/** How the evaluation's cancel of a run starts: the asks nobody recorded follow, as JSON (read back when the run is reused). */
const ASKED = 'cairn eval: the run would have asked a person the recording does not answer: ';

/** At most this many times a run is asked what it waits for (each a person answered from the recording). */
const MAX_HUMAN_ROUNDS = 200;

/**
 * People's answers for one case. The baseline lane reproduces the recorded run, so its questions
 * have the recorded ids: each gets the answers recorded for its id, in order (one the run refuses,
 * e.g. an invalid answer sent by Signal, is skipped). The candidate's question gets the answer the
 * baseline's same question took. Reviews by tool and argument hash, budget requests in order.
 */
export class CaseAnswers {
  readonly byQuestion = new Map<string, JsonValue>();
  readonly #budgets = new Map<EvalLane, number>();

  constructor(
    readonly recording: Recording | undefined,
    /** Settles when the baseline lane has run: every question it was asked is known by then. */
    readonly baselineDone: Promise<unknown>,
    readonly dataset: Readonly<Record<string, JsonValue>> = {},
  ) {}

  /** The answers to try for question `id`, best first. */
  async answers(lane: EvalLane, question: string, id: string): Promise<JsonValue[]> {
    const known = this.dataset[question];
    if (lane === 'baseline') {
      const recorded = (this.recording?.answers ?? []).filter((item) => item.id === id).map((item) => item.answer);
      return known === undefined ? recorded : [...recorded, known];
    }
    // The lanes run side by side: a question the baseline has not reached yet may still come.
    if (!this.byQuestion.has(question)) await this.baselineDone.catch(() => undefined);
    const answer = this.byQuestion.get(question) ?? known;
    return answer === undefined ? [] : [answer];
  }

  /** The baseline's run took `answer` to `question`: the candidate's same question gets it. */
  took(lane: EvalLane, question: string, answer: JsonValue): void {
    if (lane === 'baseline') this.byQuestion.set(question, answer);
  }

  reviews(name: string, argsHash: string): JsonValue[] {
    return (this.recording?.reviews ?? [])
      .filter((review) => review.argsHash === argsHash && (review.name === undefined || review.name === name))
      .map((review) => review.decision);
  }

  /** The next recorded budget decision for `lane`. */
  budget(lane: EvalLane): JsonValue | undefined {
    const next = this.#budgets.get(lane) ?? 0;
    this.#budgets.set(lane, next + 1);
    return this.recording?.budgets[next]?.decision;
  }
}

/** The people a reused lane run would have asked: the evaluation's cancel says whom. */
export function asksInHistory(events: readonly EvalEvent[]): NewAsk[] {
  for (const event of events)
    if (
      event.type === 'signaled' &&
      event.name === 'cancel' &&
      typeof event.args === 'string' &&
      event.args.startsWith(ASKED)
    )
      try {
        return JSON.parse(event.args.slice(ASKED.length)) as NewAsk[];
      } catch {
        return [];
      }
  return [];
}

/** What the run waits for (the `untilIdle` Update), or undefined once it has closed. */
async function untilIdle(handle: WorkflowHandle<AgentRunWorkflow>): Promise<RunState | undefined> {
  for (;;) {
    try {
      const state = await handle.executeUpdate(untilIdleUpdate);
      if (!state.continuingAsNew) return state;
    } catch (error) {
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') return undefined;
      throw error;
    }
  }
}

/** Tries `offers` in order until the run takes one; the index taken, or -1 when it refused them all (or there were none). */
async function firstTaken(offers: readonly JsonValue[], send: (offer: JsonValue) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < offers.length; i++) {
    try {
      await send(offers[i]!);
      return i;
    } catch (error) {
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
    }
  }
  return -1;
}

/** Answers what the run asks from the recording until it ends; a question nobody recorded stops it. */
export async function answerPeople(
  handle: WorkflowHandle<AgentRunWorkflow>,
  lane: EvalLane,
  answers: CaseAnswers,
): Promise<NewAsk[]> {
  for (let round = 0; round < MAX_HUMAN_ROUNDS; round++) {
    const state = await untilIdle(handle);
    if (!state || state.phase === 'done' || state.outcome) return [];
    const asks: NewAsk[] = [];
    if (state.clarification) {
      const { id, question } = state.clarification;
      const offers = await answers.answers(lane, question, id);
      const taken = await firstTaken(offers, (answer) =>
        handle.executeUpdate(answerClarificationUpdate, { args: [{ id, answer }] }),
      );
      if (taken < 0) asks.push({ kind: 'clarification', text: question });
      else answers.took(lane, question, offers[taken]!);
    } else if (state.reviews.length > 0) {
      for (const { toolCallId, argsHash, name, args } of state.reviews) {
        const taken = await firstTaken(answers.reviews(name, argsHash), (decision) =>
          handle.executeUpdate(reviewToolCallUpdate, { args: [{ toolCallId, argsHash, decision: decision as never }] }),
        );
        if (taken < 0) asks.push({ kind: 'review', text: `${name} ${JSON.stringify(args).slice(0, 200)}` });
      }
    } else if (state.budget?.pending) {
      const { id } = state.budget.pending;
      const decision = answers.budget(lane);
      const taken = await firstTaken(decision === undefined ? [] : [decision], (offer) =>
        handle.executeUpdate(extendBudgetUpdate, { args: [{ id, decision: offer as never }] }),
      );
      if (taken < 0) asks.push({ kind: 'budget', text: `extend the ${state.budget.pending.limit} budget` });
    } else if (state.paused) await handle.signal(resumeSignal);
    if (asks.length > 0) {
      await handle.signal(cancelSignal, `${ASKED}${JSON.stringify(asks)}`);
      return asks;
    }
  }
  const asks: NewAsk[] = [{ kind: 'clarification', text: `more than ${MAX_HUMAN_ROUNDS} rounds of questions` }];
  await handle.signal(cancelSignal, `${ASKED}${JSON.stringify(asks)}`);
  return asks;
}
