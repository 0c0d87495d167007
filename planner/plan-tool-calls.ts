/**
 * Admits one model turn's tool calls: caps (the batch whole or not at all), disabled tools,
 * blocked calls, per-turn budgets, and which calls wait for a human review.
 * Workflow-safe, deterministic.
 */
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { completeBatch } from './complete-batch.js';
import { keyOnceCalls } from './once-keys.js';
import { budgetFor, enabledTools, refusal } from './plan-common.js';
import type { CheckedCall, Plan, PendingReview, PlannerState } from './plan.js';

export function planToolCalls(state: PlannerState, checked: readonly CheckedCall[], now: number): Plan {
  const enabled = enabledTools(state);
  const results: Record<string, ToolResult> = {};
  const admitted: CheckedCall[] = [];
  for (const c of checked) {
    const { call } = c;
    if (c.failure) results[call.toolCallId] = c.failure;
    else if (!enabled.includes(call.name))
      results[call.toolCallId] = refusal(
        call,
        'unknown_tool',
        `${call.name} is disabled: ${state.disabled[call.name]?.reason ?? 'not available'}.`,
        enabled,
      );
    else if (state.blocked[c.key])
      results[call.toolCallId] = refusal(call, 'loop_detected', `Not run: ${state.blocked[c.key]}`);
    else if (admitted.length >= state.policy.maxCallsPerTurn)
      results[call.toolCallId] = refusal(
        call,
        'too_many_calls',
        `Not run: a turn runs at most ${state.policy.maxCallsPerTurn} calls; call again for the rest.`,
      );
    else admitted.push(c);
  }

  const attempts: Record<string, number> = {};
  const toRun: ToolCall[] = [];
  const reviews: PendingReview[] = [];
  const over = state.toolCallsUsed + admitted.length > state.policy.maxToolCalls;
  for (const c of admitted) {
    const { call } = c;
    const used = attempts[c.key] ?? 0;
    if (over) {
      results[call.toolCallId] = refusal(
        call,
        'tool_call_cap_exceeded',
        `Not run: the run's cap of ${state.policy.maxToolCalls} tool calls would be crossed by this batch.`,
      );
    } else if (used >= budgetFor(state, c.sideEffects)) {
      results[call.toolCallId] = refusal(
        call,
        'retry_budget_exceeded',
        `Not run: ${call.name} with these arguments already ran ${used} time(s) this turn.`,
      );
    } else if (c.needsApproval) {
      attempts[c.key] = used + 1;
      const { allow, description } = c.review ?? {};
      reviews.push({
        toolCallId: call.toolCallId,
        name: call.name,
        args: call.args,
        argsHash: c.argsHash,
        ...(allow && { allowed: allow }),
        ...(description && { description }),
      });
    } else {
      attempts[c.key] = used + 1;
      toRun.push(call);
    }
  }

  const next: PlannerState = {
    ...state,
    // A new model turn starts a new budget.
    attempts,
    toolCallsUsed: state.toolCallsUsed + toRun.length + reviews.length,
    batch: {
      entries: checked.map((c) => ({
        call: c.call,
        key: c.key,
        sideEffects: c.sideEffects,
        argsHash: c.argsHash,
        ...(c.reconcile && { reconcile: c.reconcile }),
      })),
      results,
    },
  };
  // Held calls hold the batch (policy `whileReviewing: 'hold_batch'`), or there is nothing else to run.
  if (reviews.length > 0 && (toRun.length === 0 || state.policy.whileReviewing === 'hold_batch')) {
    return {
      state: { ...next, phase: 'awaiting_review', reviews, waitingSince: now, waitingRuns: toRun },
      step: { type: 'await_review', reviews },
      record: [],
      notes: [],
    };
  }
  if (toRun.length > 0) {
    // With `run_others`, the reviews are asked now: a decision taken while these run counts, and
    // the run waits for one when they are done (completeBatch).
    return {
      state: { ...keyOnceCalls(next, toRun), phase: 'tools', reviews },
      step: { type: 'execute_tools', calls: toRun },
      record: [],
      notes: [],
    };
  }
  return completeBatch(next, now, over ? `tool call cap (${state.policy.maxToolCalls}) reached` : undefined);
}
