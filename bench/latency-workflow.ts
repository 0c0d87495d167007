/**
 * The latency bench's workflow: N activities one after the other — the bare activity, the same
 * as a local activity, or Cairn's tool activity with the options agentRun gives the tool — timed
 * in workflow time (the start of the first workflow task to the start of the one that gets the
 * last result), so the figure is N round trips and nothing else. Workflow code, bundled by
 * bench/workflows.ts.
 */
import { proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { activityOptions } from '../workflows/tool-dispatch.js';
import type { bareActivities } from './bare-activities.js';
import { fetchRecord, recordId } from './bench-agent.js';

export type LatencyKind = 'bare' | 'bare-local' | 'cairn-tool' | 'timer';

export interface ActivityLatencyInput {
  readonly kind: LatencyKind;
  /** Timed calls. */
  readonly calls: number;
  /**
   * Calls made first and left out of the time. Temporal's default server reads its task queues
   * through a token bucket that lets ~10 round trips through at once after a quiet spell: a few
   * calls first measure the steady state rather than that burst.
   */
  readonly untimed?: number;
}

export interface ActivityLatencyResult {
  /** Timed calls that succeeded. */
  readonly calls: number;
  /** Workflow time for the timed calls, in milliseconds. */
  readonly ms: number;
}

const bare = proxyActivities<typeof bareActivities>({ startToCloseTimeout: 30_000, retry: { maximumAttempts: 3 } });
const bareLocal = proxyLocalActivities<typeof bareActivities>({
  startToCloseTimeout: 30_000,
  retry: { maximumAttempts: 3 },
});
const { runTool } = proxyActivities<{ runTool(input: RunToolInput): Promise<ToolResult> }>(
  activityOptions(fetchRecord),
);

/** The durable timer the `timer` kind sleeps on, as a planner back-off would (shortest: 1 ms). */
export const TIMER_MS = 1;

export async function activityLatency({
  kind,
  calls,
  untimed = 0,
}: ActivityLatencyInput): Promise<ActivityLatencyResult> {
  /** Call `i`: true when it succeeded. */
  const call = async (i: number): Promise<boolean> => {
    const id = recordId(i, 1);
    if (kind === 'timer') {
      await sleep(TIMER_MS);
      return true;
    }
    if (kind === 'cairn-tool')
      return (await runTool({ name: fetchRecord.name, toolCallId: `${i}.1`, args: { id } })).status === 'ok';
    return (await (kind === 'bare' ? bare : bareLocal).bareFetchRecord(id)).id === id;
  };
  for (let i = 1; i <= untimed; i++) await call(i);
  const started = Date.now();
  let ok = 0;
  for (let i = untimed + 1; i <= untimed + calls; i++) if (await call(i)) ok++;
  return { calls: ok, ms: Date.now() - started };
}
