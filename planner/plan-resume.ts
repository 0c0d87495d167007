/**
 * Tool results arrive: transient failures back off on a durable timer and run again without a
 * model turn (within the per-turn budget and the retry-after ceiling); otherwise the batch is
 * complete (complete-batch.ts). Workflow-safe, deterministic.
 */
import { failureCode, failureReason, type ToolResult } from '../shared/tools/tool-result.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import { backoffDelay, maxRetryAfter } from './backoff.js';
import { completeBatch } from './complete-batch.js';
import { settleOnceCalls } from './once-keys.js';
import { HINT_ACTIONS } from './hint-actions.js';
import { budgetFor } from './plan-common.js';
import type { Plan, PlanStep, PlannerState } from './plan.js';

/**
 * Results of executed calls arrive; back off what is transient, else complete the batch.
 * `alsoRun`: calls of the batch that run again now under their keys (plan-reconcile.ts).
 */
export function planResume(
  state: PlannerState,
  results: readonly ToolResult[],
  now: number,
  alsoRun: readonly ToolCall[] = [],
): Plan {
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
    if ((retryAfterMs ?? 0) > maxRetryAfter(state.policy.backoff)) continue; // too long: the model decides
    attempts[entry.key] = used + 1;
    rerun.push(entry.call);
    // One timer for the batch: long enough for the slowest to be ready.
    delayMs = Math.max(delayMs, backoffDelay(state.policy.backoff, used, entry.key, retryAfterMs));
  }
  const next: PlannerState = settleOnceCalls({ ...state, attempts, batch: { ...batch, results: merged } }, results);
  if (rerun.length > 0) {
    const names = [...new Set(rerun.map((c) => c.name))].join(', ');
    const why = results.find((r) => rerun.some((c) => c.toolCallId === r.toolCallId));
    const reason = `back-off for ${names}: ${why && failureCode(why) === 'rate_limited' ? 'rate limited' : 'timed out'}`;
    return {
      state: { ...next, phase: 'backing_off' },
      step: { type: 'back_off', delayMs, reason, next: { type: 'execute_tools', calls: [...rerun, ...alsoRun] } },
      record: [],
      notes: [],
    };
  }
  if (alsoRun.length > 0)
    return {
      state: { ...next, phase: 'tools' },
      step: { type: 'execute_tools', calls: alsoRun },
      record: [],
      notes: [],
    };
  return completeBatch(next, now);
}

/** A back-off's timer fired: take the step it deferred (the model again, or the calls again). */
export function planBackoffElapsed(state: PlannerState, step: Extract<PlanStep, { type: 'back_off' }>): Plan {
  return {
    state: { ...state, phase: step.next.type === 'call_model' ? 'model' : 'tools' },
    step: step.next,
    record: [],
    notes: [],
  };
}
