/**
 * Acts on tool results: backs off transient failures (no model turn), and once the batch is whole,
 * applies one rule per retry reason (hint-actions.ts), detects loops, checks caps, and picks the
 * next step: the model (repair or continue), a clarification, or a forced final turn.
 * Workflow-safe, deterministic.
 */
import { FAILURES } from '../shared/failure-taxonomy.js';
import { failureCode, failureReason, type ToolResult } from '../shared/tool-result.js';
import type { ToolCall } from '../shared/tool-call.js';
import type { ToolChoice } from '../shared/model-response.js';
import { backoffDelay, maxRetryAfter } from './backoff.js';
import { HINT_ACTIONS } from './hint-actions.js';
import { callModel, capReached, finalize } from './plan-common.js';
import type { ErrorSummary, PendingClarification, Plan, PlannerState } from './plan.js';
import { budgetFor } from './plan-tool-calls.js';

const MAX_LAST_ERRORS = 5;

/** Results of executed calls arrive; back off what is transient, else complete the batch. */
export function planResume(state: PlannerState, results: readonly ToolResult[], now: number): Plan {
  const batch = state.batch;
  if (!batch) throw new Error('planResume: no batch in progress');
  const merged = { ...batch.results };
  for (const r of results) merged[r.toolCallId] = r;

  const attempts = { ...state.attempts };
  const rerun: ToolCall[] = [];
  let delayMs = 0;
  for (const r of results) {
    const reason = failureReason(r);
    if (!reason || HINT_ACTIONS[reason] !== 'back_off') continue;
    const entry = batch.entries.find((e) => e.call.toolCallId === r.toolCallId);
    if (!entry) continue;
    const used = attempts[entry.key] ?? 0;
    if (used >= budgetFor(state, entry.sideEffects)) continue;
    const retryAfterMs = r.status === 'error' ? r.retryHint?.retryAfterMs : undefined;
    if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfter(state.policy.backoff)) continue; // too long: the model decides
    attempts[entry.key] = used + 1;
    rerun.push(entry.call);
    delayMs = Math.max(delayMs, backoffDelay(state.policy.backoff, used, entry.key, retryAfterMs));
  }
  const next: PlannerState = { ...state, attempts, batch: { ...batch, results: merged } };
  if (rerun.length > 0) {
    const names = [...new Set(rerun.map((c) => c.name))].join(', ');
    const why = results.find((r) => rerun.some((c) => c.toolCallId === r.toolCallId));
    const reason = `back-off for ${names}: ${why && failureCode(why) === 'rate_limited' ? 'rate limited' : 'timed out'}`;
    return {
      state: { ...next, phase: 'backing_off' },
      step: { type: 'back_off', delayMs, reason, next: { type: 'execute_tools', calls: rerun } },
      record: [],
      notes: [],
    };
  }
  return completeBatch(next, now);
}

/** Every call of the batch has a result: record them and decide what comes next. */
export function completeBatch(state: PlannerState, now: number, forcedFinal?: string): Plan {
  const batch = state.batch!;
  const record = batch.entries.map((e) => {
    const result = batch.results[e.call.toolCallId];
    if (!result) throw new Error(`completeBatch: no result for ${e.call.toolCallId}`);
    return result;
  });
  const notes: string[] = [];
  const streaks = { ...state.failureStreaks };
  const blocked = { ...state.blocked };
  const repairs = { ...state.repairStreaks };
  const disabled = { ...state.disabled };
  const errors: ErrorSummary[] = [...state.lastErrors];
  let clarification: Omit<PendingClarification, 'id'> | null = null;
  let escalation: string | null = null;
  let restrictTo: string | null = null;

  for (const [i, result] of record.entries()) {
    const { key, call } = batch.entries[i]!;
    if (result.status === 'ok') {
      delete streaks[key];
      repairs[call.name] = 0;
      continue;
    }
    const code = failureCode(result)!;
    errors.push({ toolCallId: call.toolCallId, tool: call.name, code, message: result.status === 'validator_failed' ? result.feedback : result.error.message });
    // A refusal of a call already known to fail continues that call's streak.
    const prior = streaks[key];
    const refusal = FAILURES[code].reason === 'budget_exceeded';
    const count = prior && (prior.code === code || refusal) ? prior.count + 1 : 1;
    streaks[key] = { code: prior && refusal ? prior.code : code, count };
    if (count >= state.policy.loopThreshold && !escalation) {
      blocked[key] = `${call.name} failed the same way (${streaks[key]!.code}) ${count} times with these arguments.`;
      escalation = `${call.name} keeps failing with ${streaks[key]!.code}`;
    }

    const hint = result.status === 'error' ? result.retryHint : undefined;
    const reason = failureReason(result)!;
    switch (HINT_ACTIONS[reason]) {
      case 'repair': {
        repairs[call.name] = (repairs[call.name] ?? 0) + 1;
        if (repairs[call.name]! > state.policy.maxRepairsPerTool && !escalation)
          escalation = `${call.name} still gets invalid calls after ${state.policy.maxRepairsPerTool} repairs`;
        const ask = hint?.clarifyingQuestion ?? (reason === 'missing_fields' && state.policy.missingFieldsFrom === 'user'
          ? `To call ${call.name} I need: ${(hint?.missingFields ?? []).join(', ')}. Please provide them.`
          : undefined);
        if (ask && !clarification)
          clarification = { question: ask, tool: call.name, missingFields: hint?.missingFields, exampleInput: hint?.exampleInput };
        else if (hint?.restrictToTool) restrictTo ??= call.name;
        break;
      }
      case 'block_call':
        blocked[key] = `${call.name} returned malformed output for these arguments; calling it again the same way will not help.`;
        break;
      case 'disable_tool': {
        const until = state.policy.disableToolForTurns === null ? null : state.turn + state.policy.disableToolForTurns;
        disabled[call.name] = { reason: result.status === 'error' ? result.error.message : 'unavailable', untilTurn: until };
        notes.push(`${call.name} is unavailable and has been removed from your tools${until === null ? ' for the rest of this run' : ` for ${state.policy.disableToolForTurns} turn(s)`}.`);
        break;
      }
      default:
        if (hint?.clarifyingQuestion && !clarification)
          clarification = { question: hint.clarifyingQuestion, tool: call.name, missingFields: hint.missingFields, exampleInput: hint.exampleInput };
    }
  }

  // Partial data is progress: paging through many pages is not a failing streak.
  const allFailed = record.length > 0 && record.every((r) => r.status !== 'ok' && HINT_ACTIONS[failureReason(r)!] !== 'continue');
  const next: PlannerState = {
    ...state,
    batch: null,
    reviews: [],
    waitingRuns: [],
    failureStreaks: streaks,
    blocked,
    repairStreaks: repairs,
    disabled,
    failedBatchStreak: allFailed ? state.failedBatchStreak + 1 : 0,
    lastErrors: errors.slice(-MAX_LAST_ERRORS),
  };

  const ending = forcedFinal ?? next.finalizing;
  if (ending) return finalize(next, ending, notes, record);
  const cap = capReached(next, now);
  if (cap) return finalize(next, cap, notes, record);
  if (escalation) {
    if (state.policy.onLoop === 'finalize') return finalize(next, escalation, notes, record);
    clarification = { question: `${escalation}. How should I proceed?`, tool: undefined };
  }
  if (clarification) return askHuman(next, clarification, now, notes, record);
  const choice: ToolChoice = restrictTo ? { tool: restrictTo } : 'auto';
  return callModel(next, choice, notes, record);
}

function askHuman(state: PlannerState, question: Omit<PendingClarification, 'id'>, now: number, notes: string[], record: readonly ToolResult[]): Plan {
  const clarification: PendingClarification = stripUndefined({ id: `q${state.questions + 1}`, ...question });
  return {
    state: { ...state, phase: 'awaiting_clarification', clarification, questions: state.questions + 1, waitingSince: now },
    step: { type: 'await_clarification', clarification },
    record,
    notes,
  };
}

/** History holds JSON: leave out keys whose value is undefined so round-trips are exact. */
function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
