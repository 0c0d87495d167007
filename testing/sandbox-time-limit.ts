/**
 * The workflow sandbox's time limit for test workers. The SDK fails a workflow task whose
 * activation runs longer than `isolateExecutionTimeout` (5 s, read from WorkerOptions though their
 * type leaves it out). That is wall-clock time: a test machine busy with the rest of its suite
 * reached it on activations that take milliseconds when idle, and a test then saw a failed workflow
 * task it did not cause. The limit is there to stop a workflow stuck in a loop; in a test, the
 * test's own timeout does that.
 */
import type { Duration } from '@temporalio/common';
import type { WorkerTuning } from '../runtime/worker.js';

export const TEST_SANDBOX_TIME_LIMIT: Duration = '60s';

/** `tuning` with the test time limit, unless it sets one itself. */
export function withTestSandboxTimeLimit(tuning: WorkerTuning = {}): WorkerTuning {
  const limit: { isolateExecutionTimeout: Duration } = { isolateExecutionTimeout: TEST_SANDBOX_TIME_LIMIT };
  return { ...limit, ...tuning };
}
