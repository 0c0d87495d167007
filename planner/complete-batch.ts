/**
 * A batch is whole: every call the model made has a result. Record the results in call order,
 * learn from the failures — loops across turns (loop-detection.ts), one rule per retry reason
 * (hint-actions.ts) — and choose what comes next: a forced final turn, a question for the human,
 * or the model (restricted to one tool when one tool needs repair). Workflow-safe, deterministic.
 */
import { failureCode, failureReason, type ToolFailureResult, type ToolResult } from '../shared/tools/tool-result.js';
import type { RetryHint } from '../shared/failures/retry-hint.js';
import type { ToolChoice } from '../shared/model/model-response.js';
import { assertNever } from '../shared/assert-never.js';
import { humanize } from '../shared/guards/field-labels.js';
import { HINT_ACTIONS } from './hint-actions.js';
import { detectLoops } from './loop-detection.js';
import { callModel, capReached, finalize } from './plan-common.js';
import type { Batch, ErrorSummary, PendingClarification, Plan, PlannerState } from './plan.js';

/** How many recent errors the state keeps for people (the UI's "Last error" is the newest). */
export const MAX_LAST_ERRORS = 5;

type Question = Omit<PendingClarification, 'id'>;

export function completeBatch(state: PlannerState, now: number, forcedFinal?: string): Plan {
  const batch = state.batch;
  if (!batch) throw new Error('completeBatch: no batch in progress');
  // What could run has run, and calls are still held (policy `whileReviewing: 'run_others'`): the
  // run waits for their decisions, and the batch's results wait with them.
  const reviews = state.reviews;
  if (reviews.length > 0) {
    return {
      state: { ...state, phase: 'awaiting_review', waitingSince: now, waitingRuns: [] },
      step: { type: 'await_review', reviews },
      record: [],
      notes: [],
    };
  }
  const record = batch.entries.map((e) => {
    const result = batch.results[e.call.toolCallId];
    if (!result) throw new Error(`completeBatch: no result for ${e.call.toolCallId}`);
    return result;
  });
  const loops = detectLoops(state, batch, record);
  const acted = applyHintActions(state, batch, record);
  // Partial data is progress: paging through many pages is not a failing streak.
  // A batch is never empty: the model made at least one call.
  const allFailed = record.every((r) => r.status !== 'ok' && HINT_ACTIONS[failureReason(r)!] !== 'continue');
  const next: PlannerState = {
    ...state,
    batch: null,
    reviews: [],
    waitingRuns: [],
    failureStreaks: loops.streaks,
    blocked: { ...state.blocked, ...loops.blocked, ...acted.blocked },
    repairStreaks: acted.repairStreaks,
    disabled: acted.disabled,
    failedBatchStreak: allFailed ? state.failedBatchStreak + 1 : 0,
    lastErrors: newestErrors(state.lastErrors, batch, record),
  };
  // The earliest call that escalates decides; a loop outranks a repair streak on the same call.
  // Stryker disable next-line MethodExpression,ConditionalExpression: for the types only; sort() puts undefined last
  const escalations = [loops.escalation, acted.escalation].filter((e) => e !== undefined);
  const escalation = escalations.sort((a, b) => a.index - b.index)[0]?.text;
  const notes = [...(batch.notes ?? []), ...acted.notes];

  const ending = forcedFinal ?? next.finalizing;
  if (ending) return finalize(next, ending, notes, record, next.finalizingCode ?? 'limit_reached');
  const cap = capReached(next, now);
  if (cap) return finalize(next, cap.reason, notes, record, cap.code);
  let question = acted.question;
  if (escalation) {
    if (state.policy.onLoop === 'finalize') return finalize(next, escalation, notes, record, 'loop_detected');
    question = { question: `${escalation}. How should I proceed?` };
  }
  if (question) return askHuman(next, question, now, notes, record);
  const choice: ToolChoice = acted.restrictTo ? { tool: acted.restrictTo } : 'auto';
  return callModel(next, choice, notes, record);
}

interface Acted {
  readonly repairStreaks: Record<string, number>;
  readonly blocked: Record<string, string>;
  readonly disabled: PlannerState['disabled'];
  readonly notes: string[];
  readonly question?: Question;
  readonly restrictTo?: string;
  readonly escalation?: { readonly index: number; readonly text: string };
}

/**
 * The default question for missing fields, to the end user: what is missing in their words (the
 * fields' descriptions), never the tool's name, which means nothing to them.
 */
export function missingFieldsQuestion(hint: Partial<RetryHint>): string {
  const fields = hint.missingFields ?? [];
  const labels =
    hint.missingFieldLabels?.length === fields.length
      ? hint.missingFieldLabels
      : fields.map((path) => `the ${humanize(path.split('.').at(-1) ?? path)}`);
  const last = labels.at(-1) ?? 'something';
  // Labels that hold commas themselves are listed with semicolons.
  const list =
    labels.length < 2
      ? last
      : labels.some((label) => label.includes(','))
        ? `${labels.slice(0, -1).join('; ')}; and ${last}`
        : `${labels.slice(0, -1).join(', ')} and ${last}`;
  return `I need a bit more information: ${list}. Could you provide ${labels.length === 1 ? 'it' : 'them'}?`;
}

/** One rule per retry reason (HINT_ACTIONS), over the batch in call order. */
function applyHintActions(state: PlannerState, batch: Batch, record: readonly ToolResult[]): Acted {
  const repairStreaks = { ...state.repairStreaks };
  const blocked: Record<string, string> = {};
  const disabled = { ...state.disabled };
  const notes: string[] = [];
  const restrict = new Set<string>();
  let question: Question | undefined;
  let escalation: Acted['escalation'];

  for (const [index, result] of record.entries()) {
    const { key, call } = batch.entries[index]!;
    if (result.status === 'ok') {
      repairStreaks[call.name] = 0;
      continue;
    }
    // A validator's failure has no hint.
    const hint: Partial<RetryHint> = (result as Partial<ToolFailureResult>).retryHint ?? {};
    const reason = failureReason(result)!;
    const asked = hint.clarifyingQuestion;
    const action = HINT_ACTIONS[reason];
    switch (action) {
      case 'repair': {
        repairStreaks[call.name] = (repairStreaks[call.name] ?? 0) + 1;
        if (repairStreaks[call.name]! > state.policy.maxRepairsPerTool)
          escalation ??= {
            index,
            text: `${call.name} still gets invalid calls after ${state.policy.maxRepairsPerTool} repairs`,
          };
        const ask =
          asked ??
          (reason === 'missing_fields' && state.policy.missingFieldsFrom === 'user'
            ? missingFieldsQuestion(hint)
            : undefined);
        if (ask && !question)
          question = stripUndefined({
            question: ask,
            tool: call.name,
            missingFields: hint.missingFields,
            exampleInput: hint.exampleInput,
          });
        else if (hint.restrictToTool) restrict.add(call.name);
        break;
      }
      case 'block_call':
        blocked[key] =
          `${call.name} returned malformed output for these arguments; calling it again the same way will not help.`;
        break;
      case 'disable_tool': {
        const turns = state.policy.disableToolForTurns;
        disabled[call.name] = { reason: failureMessage(result), untilTurn: turns === null ? null : state.turn + turns };
        notes.push(
          `${call.name} is unavailable and has been removed from your tools${turns === null ? ' for the rest of this run' : ` for ${turns} turn(s)`}.`,
        );
        break;
      }
      case 'ask_human':
        if (state.policy.onOutcomeUnknown === 'clarify' && !question) {
          const args = JSON.stringify(call.args);
          question = {
            question: `${call.name} (call ${call.toolCallId}, ${args.length > 200 ? `${args.slice(0, 200)}…` : args}) stopped before it reported a result, so nobody knows whether it took effect. Did it?`,
            tool: call.name,
          };
        }
        break;
      // Named, not `default`: an action the table misspells then fails the tests of its reason.
      case 'inform':
      case 'continue':
      case 'back_off':
        if (asked && !question)
          question = stripUndefined({
            question: asked,
            tool: call.name,
            missingFields: hint.missingFields,
            exampleInput: hint.exampleInput,
          });
        break;
      // Stryker disable next-line all: unreachable, tsc proves every variant handled
      default:
        assertNever(action, 'planner action');
    }
  }
  // Restricting the next turn to one tool only helps when one tool needs repair; with two, the
  // model needs both, and the hints in front of it say what to fix.
  const restrictTo = restrict.size === 1 ? [...restrict][0] : undefined;
  return {
    repairStreaks,
    blocked,
    disabled,
    notes,
    ...(question && { question }),
    ...(restrictTo && { restrictTo }),
    ...(escalation && { escalation }),
  };
}

/** The state's recent errors with this batch's appended: the newest MAX_LAST_ERRORS, oldest first. */
function newestErrors(previous: readonly ErrorSummary[], batch: Batch, record: readonly ToolResult[]): ErrorSummary[] {
  const errors = [...previous];
  for (const [index, result] of record.entries()) {
    if (result.status === 'ok') continue;
    const { call } = batch.entries[index]!;
    errors.push({
      toolCallId: call.toolCallId,
      tool: call.name,
      code: failureCode(result)!,
      message: failureMessage(result),
    });
  }
  return errors.slice(-MAX_LAST_ERRORS);
}

/** What went wrong, in the failure's own words. */
function failureMessage(result: Exclude<ToolResult, { status: 'ok' }>): string {
  return result.status === 'validator_failed' ? result.feedback : result.error.message;
}

function askHuman(
  state: PlannerState,
  question: Question,
  now: number,
  notes: readonly string[],
  record: readonly ToolResult[],
): Plan {
  const clarification: PendingClarification = { id: `q${state.questions + 1}`, ...question };
  return {
    state: {
      ...state,
      phase: 'awaiting_clarification',
      clarification,
      questions: state.questions + 1,
      waitingSince: now,
    },
    step: { type: 'await_clarification', clarification },
    record,
    notes,
  };
}

/** History holds JSON: leave out keys whose value is undefined so round-trips are exact. */
function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
