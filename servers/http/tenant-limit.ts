/**
 * The per-tenant limit of runs in flight on the HTTP, A2A and MCP servers (client/tenant-runs-limit.ts
 * counts): a start over it is 429 `tenant_runs_limit` with Retry-After. Node-only.
 */
import type { CairnClient } from '../../client/cairn-client.js';
import { checkTenantRuns, TenantRunsLimitError, type MaxRunsPerTenant } from '../../client/tenant-runs-limit.js';
import { HttpError } from './http-error.js';

export type { MaxRunsPerTenant } from '../../client/tenant-runs-limit.js';

/** Throws 429 when `tenant` already has its most runs in flight; a start that finds `workflowId` running (a repeated start) counts nothing. */
export async function withinTenantLimit(
  client: CairnClient,
  max: MaxRunsPerTenant | undefined,
  tenant: string,
  workflowId: string,
): Promise<void> {
  await checkTenantRuns(client.temporal, max, tenant, workflowId).catch((error: unknown) => {
    if (!TenantRunsLimitError.isInstance(error)) throw error;
    throw new HttpError(429, 'tenant_runs_limit', error.message, {
      'retry-after': String(Math.ceil(error.retryAfterMs / 1000)),
    });
  });
}
