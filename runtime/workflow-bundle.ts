/**
 * Bundles workflow code ahead of time, with webpack's chatter kept out of the output: tests and
 * benches bundle once per process and hand the code to every worker. Node-only.
 */
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

const quietLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

export function bundleWorkflows(workflowsPath: string): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: quietLogger });
}
