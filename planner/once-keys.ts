/**
 * Idempotency keys for `once` calls (shared/identity/once-key.ts), kept by the planner: a key is given to
 * each `once` call when it is about to run (a review's edit runs under the key of its new
 * arguments), travels to the activity with the call, and is settled when its result comes back —
 * a call whose outcome is unknown gives its key back, so the same call made again can be deduped
 * by the tool. The ledger lives in the planner state and so is carried across continue-as-new.
 * Workflow-safe, deterministic.
 */
import { issueOnceKeys, settleOnceKeys } from '../shared/identity/once-key.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import type { PlannerState } from './plan.js';

/** `state` with keys for the `once` calls among `calls` that run now. */
export function keyOnceCalls(state: PlannerState, calls: readonly ToolCall[]): PlannerState {
  const batch = state.batch;
  if (!batch) return state;
  const once = calls.flatMap((call) => {
    const entry = batch.entries.find((e) => e.call.toolCallId === call.toolCallId);
    return entry?.sideEffects === 'once' && entry.argsHash !== undefined && !batch.onceKeys?.[call.toolCallId]
      ? [{ toolCallId: call.toolCallId, name: call.name, argsHash: entry.argsHash }]
      : [];
  });
  if (once.length === 0) return state;
  const { keys, ledger } = issueOnceKeys(state.onceLedger ?? {}, state.runKey ?? '', once);
  const onceKeys = { ...batch.onceKeys, ...Object.fromEntries(once.map((c, i) => [c.toolCallId, keys[i]!])) };
  return { ...state, onceLedger: ledger, batch: { ...batch, onceKeys } };
}

/** The ledger once `results` of keyed calls came back. */
export function settleOnceCalls(state: PlannerState, results: readonly ToolResult[]): PlannerState {
  const batch = state.batch;
  if (!batch?.onceKeys) return state;
  const settled = results.flatMap((result) => {
    const key = batch.onceKeys![result.toolCallId];
    const entry = batch.entries.find((e) => e.call.toolCallId === result.toolCallId);
    return key && entry?.argsHash !== undefined ? [{ name: result.name, argsHash: entry.argsHash, key, result }] : [];
  });
  return settled.length === 0 ? state : { ...state, onceLedger: settleOnceKeys(state.onceLedger ?? {}, settled) };
}
