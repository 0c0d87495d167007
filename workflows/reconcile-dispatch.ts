/**
 * Runs the planner's `reconcile` step: one `reconcileTool` activity per call, asking the tool
 * whether the effect under the call's idempotency key happened. A reconcile that fails after its
 * retries reports "unknown": a person is asked. Workflow code (sandbox).
 */
import { proxyActivities } from '@temporalio/workflow';
import { fromError } from '../shared/failures/tool-error.js';
import type { ReconcileCall, ReconcileReport, ReconcileToolInput } from '../shared/tools/reconcile.js';
import { summaryLine } from './run-details.js';

const { reconcileTool } = proxyActivities<{ reconcileTool(input: ReconcileToolInput): Promise<ReconcileReport> }>({
  // A reconcile only reads, so it may run again; it heartbeats, so a dead worker is noticed in seconds.
  startToCloseTimeout: '30s',
  heartbeatTimeout: '10s',
  retry: { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s' },
});

/** One report per call, in order; `activityId` names each activity (take-step.ts). */
export async function reconcileCalls(
  calls: readonly ReconcileCall[],
  activityId: (stem: string) => { activityId: string },
): Promise<ReconcileReport[]> {
  return Promise.all(
    calls.map(async ({ call, idempotencyKey }): Promise<ReconcileReport> => {
      try {
        const summary = summaryLine(`reconcile ${call.name} ${call.toolCallId}: did it take effect?`);
        return await reconcileTool.executeWithOptions(
          { summary, ...activityId(`reconcile:${call.toolCallId}:${call.name}`) },
          [{ name: call.name, toolCallId: call.toolCallId, args: call.args, idempotencyKey }],
        );
      } catch (err) {
        return { toolCallId: call.toolCallId, unknown: `reconcile failed: ${fromError(err).message}` };
      }
    }),
  );
}
