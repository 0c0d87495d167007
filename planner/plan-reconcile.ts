/**
 * Unknown outcomes, settled by the tool rather than a person. When a `once` call with a
 * `reconcile` comes back with its outcome unknown (its attempt timed out, its worker died), the
 * batch's results are held and the workflow asks each such tool whether the effect under the
 * call's idempotency key happened: yes → its result is the call's result, marked `reconciled`;
 * no → the call runs again under the same key; unknown → the held result stands and
 * complete-batch.ts asks a person, as for a tool without `reconcile`. A `once` call whose attempt
 * provably never began (shared/tools/once-fence.ts) needs no one asked: it runs again under its key,
 * as after a "no". Workflow-safe, deterministic.
 */
import type { ReconcileCall, ReconcileReport } from '../shared/tools/reconcile.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { outcomeKnown } from '../shared/identity/once-key.js';
import { notBegun } from '../shared/failures/after-retries.js';
import { planResume } from './plan-resume.js';
import type { Plan, PlannerState } from './plan.js';

/** Reconciles per call before a person is asked: reconcile → "no" → run again → unknown again, at most this often. */
export const MAX_RECONCILES = 3;

/**
 * Tool results arrive: a plan that reconciles the unknown outcomes among them first, or runs again
 * the `once` calls that never began; undefined when there is neither (then plan-resume.ts takes
 * the results as they are).
 */
export function planReconcile(state: PlannerState, results: readonly ToolResult[], now: number): Plan | undefined {
  const batch = state.batch;
  if (!batch) return undefined;
  const asked = (result: ToolResult) => batch.reconciles?.[result.toolCallId] ?? 0;
  const entryOf = (result: ToolResult) => batch.entries.find((e) => e.call.toolCallId === result.toolCallId);
  const keyOf = (result: ToolResult) => batch.onceKeys?.[result.toolCallId];
  const calls: ReconcileCall[] = results.flatMap((result) => {
    const entry = entryOf(result);
    const idempotencyKey = keyOf(result);
    return entry?.reconcile && idempotencyKey && !outcomeKnown(result) && asked(result) < MAX_RECONCILES
      ? [{ call: entry.call, idempotencyKey }]
      : [];
  });
  const again = results.filter((result) => isRerun(result, keyOf(result), batch.notBegun?.[result.toolCallId] ?? 0));
  if (calls.length === 0 && again.length === 0) return undefined;
  const reconciles = counted(
    batch.reconciles,
    calls.map(({ call }) => call.toolCallId),
  );
  const notBegun = counted(
    batch.notBegun,
    again.map((result) => result.toolCallId),
  );
  if (calls.length === 0)
    return planResume(
      { ...state, batch: { ...batch, ...(notBegun && { notBegun }) } },
      results.filter((result) => !again.includes(result)),
      now,
      again.map((result) => entryOf(result)!.call),
    );
  return {
    state: {
      ...state,
      phase: 'tools',
      batch: { ...batch, reconciling: results, ...(reconciles && { reconciles }), ...(notBegun && { notBegun }) },
    },
    step: { type: 'reconcile', calls },
    record: [],
    notes: [],
  };
}

/** A `once` call that never began, not yet run again `MAX_RECONCILES` times: it runs again. */
function isRerun(result: ToolResult, key: string | undefined, rerun: number): boolean {
  return key !== undefined && notBegun(result) && rerun < MAX_RECONCILES;
}

/** `counts` with one more for each of `ids`. */
function counted(
  counts: Readonly<Record<string, number>> | undefined,
  ids: readonly string[],
): Readonly<Record<string, number>> | undefined {
  if (ids.length === 0) return counts;
  return { ...counts, ...Object.fromEntries(ids.map((id) => [id, (counts?.[id] ?? 0) + 1])) };
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
    // A call that never began was counted when the reconcile was planned: it runs again too.
    const neverBegan =
      !report && isRerun(held, batch.onceKeys?.[held.toolCallId], (batch.notBegun?.[held.toolCallId] ?? 1) - 1);
    if (neverBegan) again.push(batch.entries.find((e) => e.call.toolCallId === held.toolCallId)!.call);
    if (neverBegan) return [];
    if (!report || 'unknown' in report) return [held];
    if (report.happened) return [{ ...report.result, name: held.name, toolCallId: held.toolCallId, reconciled: true }];
    again.push(batch.entries.find((e) => e.call.toolCallId === held.toolCallId)!.call);
    return [];
  });
  const { reconciling: _held, ...rest } = batch;
  return planResume({ ...state, batch: rest }, results, now, again);
}
