/**
 * Runs in flight per tenant, across every instance and worker: a start that would put the tenant
 * over its limit is refused with 429 `tenant_runs_limit` and Retry-After. Counted through
 * visibility (`CairnTenant`, running `agentRun`s, child runs included), so concurrent starts can
 * overshoot by the starts in flight. Shared by the HTTP, A2A and MCP servers. Node-only.
 */
import type { CairnClient } from '../cairn-client.js';
import { HttpError } from './http-error.js';

/** A number for every tenant, or per tenant (undefined: no limit). */
export type MaxRunsPerTenant = number | ((tenant: string) => number | undefined);

/** How long a tenant at its limit of runs is told to wait before starting another (seconds). */
const TENANT_LIMIT_RETRY_AFTER = 5;

/** Throws 429 when `tenant` already has its most runs in flight; a start that finds `workflowId` running (a repeated start) counts nothing. */
export async function withinTenantLimit(
  client: CairnClient,
  max: MaxRunsPerTenant | undefined,
  tenant: string,
  workflowId: string,
): Promise<void> {
  const limit = typeof max === 'function' ? max(tenant) : max;
  if (limit === undefined) return;
  // The thread's run already in flight (a repeated start finds it): no new run, nothing to count.
  const running = await client.temporal.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      (d) => d.status.name === 'RUNNING',
      () => false,
    );
  if (running) return;
  // TENANT_ID admits no quote: the tenant is safe in the query as it is.
  const { count } = await client.temporal.workflow.count(
    `WorkflowType = 'agentRun' AND ExecutionStatus = 'Running' AND CairnTenant = '${tenant}'`,
  );
  if (count >= limit)
    throw new HttpError(
      429,
      'tenant_runs_limit',
      `Tenant "${tenant}" has ${count} runs in flight (at most ${limit}); start this one when one has finished.`,
      { 'retry-after': String(TENANT_LIMIT_RETRY_AFTER) },
    );
}
