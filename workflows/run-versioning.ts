/**
 * The versioning behavior a run reports to Temporal under Worker Deployment Versioning: its
 * agent's `versioning` (shared/agent/versioning.ts). Temporal asks once, when the run's workflow is
 * set up on a worker and before the run reads its input, so the agent comes from the run's start
 * memo (`cairnAgent`). Workflow-safe, deterministic.
 */
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import type { Agent } from '../shared/agent/define-agent.js';
import { runVersioningBehavior } from '../shared/agent/versioning.js';
import { AGENT_MEMO } from './contract/search-attributes.js';

/**
 * Lets each run of `agentRun` report its agent's versioning behavior. Only when some agent chooses
 * one: otherwise the workflow stays as it was, and the worker's default decides for every run.
 */
export function reportAgentVersioning(
  agentRun: (...args: never[]) => Promise<unknown>,
  agents: ReadonlyMap<string, Agent>,
): void {
  if (![...agents.values()].some((agent) => agent.versioning !== undefined)) return;
  setWorkflowOptions(() => {
    const info = workflowInfo();
    const behavior = runVersioningBehavior(
      { agent: info.memo?.[AGENT_MEMO], deploymentName: info.currentDeploymentVersion?.deploymentName },
      agents,
    );
    return behavior ? { versioningBehavior: behavior } : {};
  }, agentRun);
}
