/**
 * Unknown outcomes, settled by the tool rather than a person. When a `once` call with a
 * `reconcile` comes back with its outcome unknown (its attempt timed out, its worker died), the
 * batch's results are held and the workflow asks each such tool whether the effect under the
 * call's idempotency key happened: yes → its result is the call's result, marked `reconciled`;
 * no → the call runs again under the same key; unknown → the held result stands and
 * complete-batch.ts asks a person, as for a tool without `reconcile`. Workflow-safe, deterministic.
 */
import type { ReconcileCall, ReconcileReport } from '../shared/tools/reconcile.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { outcomeKnown } from '../shared/identity/once-key.js';
import { planResume } from './plan-resume.js';
import type { Plan, PlannerState } from './plan.js';

/** Reconciles per call before a person is asked: reconcile → "no" → run again → unknown again, at most this often. */
export const MAX_RECONCILES = 3;

/**
 * Tool results arrive: a plan that reconciles the unknown outcomes among them first, or undefined
 * when there is none to reconcile (then plan-resume.ts takes the results as they are).
 */
export function planReconcile(state: PlannerState, results: readonly ToolResult[]): Plan | undefined {
  const batch = state.batch;
  if (!batch) return undefined;
  const calls: ReconcileCall[] = results.flatMap((result) => {
    const entry = batch.entries.find((e) => e.call.toolCallId === result.toolCallId);
    const idempotencyKey = batch.onceKeys?.[result.toolCallId];
    const asked = batch.reconciles?.[result.toolCallId] ?? 0;
    return entry?.reconcile && idempotencyKey && !outcomeKnown(result) && asked < MAX_RECONCILES
      ? [{ call: entry.call, idempotencyKey }]
      : [];
  });
  if (calls.length === 0) return undefined;
  const reconciles = {
    ...batch.reconciles,
    ...Object.fromEntries(calls.map(({ call }) => [call.toolCallId, (batch.reconciles?.[call.toolCallId] ?? 0) + 1])),
  };
  return {
    state: { ...state, phase: 'tools', batch: { ...batch, reconciling: results, reconciles } },
    step: { type: 'reconcile', calls },
    record: [],
    notes: [],
  };
}

/**
 * The tools answered: what happened is recorded, what did not runs again under its key, what
 * nobody knows stays unknown; then the held results go on as plan-resume.ts takes any results.
 */
export function planReconciled(state: PlannerState, reports: readonly ReconcileReport[], now: number): Plan {
  const batch = state.batch;
  if (!batch?.reconciling) throw new Error('planReconciled: no results held for reconciling');
  const again: ToolCall[] = [];
  const results = batch.reconciling.flatMap((held): ToolResult[] => {
    const report = reports.find((r) => r.toolCallId === held.toolCallId);
    if (!report || 'unknown' in report) return [held];
    if (report.happened) return [{ ...report.result, name: held.name, toolCallId: held.toolCallId, reconciled: true }];
    again.push(batch.entries.find((e) => e.call.toolCallId === held.toolCallId)!.call);
    return [];
  });
  const { reconciling: _held, ...rest } = batch;
  return planResume({ ...state, batch: rest }, results, now, again);
}
