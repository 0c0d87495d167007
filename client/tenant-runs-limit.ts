/**
 * Runs in flight per tenant, across every instance and worker: a start that would put the tenant
 * over its limit is refused with a TenantRunsLimitError. Counted through visibility (`CairnTenant`,
 * running `agentRun`s, child runs included), so concurrent starts can overshoot by the starts in
 * flight. `CairnClient` applies its own `maxRunsPerTenant` to every start; the HTTP, A2A and MCP
 * servers apply theirs (429 `tenant_runs_limit`). Node-only (client side).
 */
import type { Client } from '@temporalio/client';

/** A number for every tenant, or per tenant (undefined: no limit). */
export type MaxRunsPerTenant = number | ((tenant: string) => number | undefined);

/** How long a tenant at its limit of runs is told to wait before starting another. */
export const TENANT_LIMIT_RETRY_AFTER_MS = 5_000;

const marker: unique symbol = Symbol.for('cairn.client.TenantRunsLimitError');

/** A start refused: the tenant already has its most runs in flight. Stable `name` and `code`. */
export class TenantRunsLimitError extends Error {
  private readonly [marker] = true;
  override readonly name = 'TenantRunsLimitError';
  readonly code = 'tenant_runs_limit';
  /** When to try again. */
  readonly retryAfterMs = TENANT_LIMIT_RETRY_AFTER_MS;

  constructor(
    readonly tenant: string,
    /** The tenant's runs in flight, as visibility counted them. */
    readonly running: number,
    readonly limit: number,
  ) {
    super(`Tenant "${tenant}" has ${running} runs in flight (at most ${limit}); start this one when one has finished.`);
  }

  /** True for a TenantRunsLimitError from any copy of this module. */
  static isInstance(error: unknown): error is TenantRunsLimitError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

/** Throws TenantRunsLimitError when `tenant` already has its most runs in flight; a start that finds `workflowId` running (a repeated start) counts nothing. */
export async function checkTenantRuns(
  temporal: Client,
  max: MaxRunsPerTenant | undefined,
  tenant: string,
  workflowId: string,
): Promise<void> {
  const limit = typeof max === 'function' ? max(tenant) : max;
  if (limit === undefined) return;
  // The thread's run already in flight (a repeated start finds it): no new run, nothing to count.
  const running = await temporal.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      (d) => d.status.name === 'RUNNING',
      () => false,
    );
  if (running) return;
  // TENANT_ID admits no quote: the tenant is safe in the query as it is.
  const { count } = await temporal.workflow.count(
    `WorkflowType = 'agentRun' AND ExecutionStatus = 'Running' AND CairnTenant = '${tenant}'`,
  );
  if (count >= limit) throw new TenantRunsLimitError(tenant, count, limit);
}
