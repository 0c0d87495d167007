/**
 * A human's part in a run: clarification answers and timeouts, review decisions, and cancel.
 * Validation of what the human sent happens before this (in the Update validators); these
 * functions only decide. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../shared/json.js';
import { toolError } from '../shared/tool-error.js';
import { NO_TELEMETRY, type ToolResult } from '../shared/tool-result.js';
import type { ToolCall } from '../shared/tool-call.js';
import { callModel, endWait, finalize } from './plan-common.js';
import { completeBatch } from './plan-resume.js';
import { refusal } from './plan-tool-calls.js';
import type { Plan, PlannerState, ReviewDecision } from './plan.js';

export function planClarificationAnswer(state: PlannerState, answer: JsonValue, now: number): Plan {
  const question = state.clarification;
  const next = { ...endWait(state, now), clarification: null };
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  return callModel(next, 'auto', [`The user answered your question "${question?.question ?? ''}": ${text}`]);
}

export function planClarificationTimeout(state: PlannerState, now: number): Plan {
  const question = state.clarification?.question ?? '';
  const next = { ...endWait(state, now), clarification: null };
  if (state.policy.onClarificationTimeout === 'finalize') return finalize(next, `no answer to "${question}" in time`);
  return callModel(next, 'auto', [`Nobody answered "${question}" in time. Continue without it, or say what you cannot do.`]);
}

/**
 * All pending reviews are decided: accepted and edited calls run (with the batch's other calls),
 * `respond` becomes the call's result, `reject` tells the model why.
 */
export function planReviewed(state: PlannerState, decisions: Readonly<Record<string, ReviewDecision>>, now: number): Plan {
  const batch = state.batch;
  if (!batch) throw new Error('planReviewed: no batch in progress');
  const results: Record<string, ToolResult> = { ...batch.results };
  const toRun: ToolCall[] = [...state.waitingRuns];
  let entries = batch.entries;
  for (const review of state.reviews) {
    const decision = decisions[review.toolCallId] ?? { type: 'reject', reason: 'no decision' };
    const call = entries.find((e) => e.call.toolCallId === review.toolCallId)!.call;
    switch (decision.type) {
      case 'accept':
        toRun.push(call);
        break;
      case 'edit': {
        const edited = { ...call, args: decision.args };
        entries = entries.map((e) => (e.call.toolCallId === call.toolCallId ? { ...e, call: edited, key: `${call.name}#${decision.argsHash}` } : e));
        toRun.push(edited);
        break;
      }
      case 'respond':
        results[call.toolCallId] = { status: 'ok', name: call.name, toolCallId: call.toolCallId, result: decision.content, telemetry: NO_TELEMETRY };
        break;
      case 'reject':
        results[call.toolCallId] = rejected(call, decision.reason);
    }
  }
  const next: PlannerState = { ...endWait(state, now), reviews: [], waitingRuns: [], batch: { entries, results } };
  if (toRun.length > 0) return { state: { ...next, phase: 'tools' }, step: { type: 'execute_tools', calls: toRun }, record: [], notes: [] };
  return completeBatch(next, now);
}

function rejected(call: ToolCall, reason: string | undefined): ToolResult {
  const message = `A human reviewer rejected this call${reason ? `: ${reason}` : '.'}`;
  return {
    status: 'error',
    name: call.name,
    toolCallId: call.toolCallId,
    error: toolError('rejected_by_human', message),
    retryHint: { reason: 'rejected', tool: call.name, message: 'Do not call it again with the same arguments; use the reason to choose what to do.' },
    telemetry: NO_TELEMETRY,
  };
}

/** Cancel: a final model turn with no tools. Any pending wait ends. */
export function planCancel(state: PlannerState, reason: string, now: number): Plan {
  // Every call the model made must be answered in the transcript: unrun ones are refused.
  const record = (state.batch?.entries ?? []).map(
    ({ call }) => state.batch!.results[call.toolCallId] ?? refusal(call, 'retry_budget_exceeded', `Not run: the run was cancelled (${reason}).`),
  );
  const next = { ...endWait(state, now), clarification: null, reviews: [], waitingRuns: [], batch: null };
  return finalize(next, reason, [], record);
}
