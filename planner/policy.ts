/**
 * The planner's default policy and how overrides apply to it. The policy's shape is shared
 * (shared/agent-policy.ts) so agents can be defined without the planner. Deterministic.
 */
import type { AgentPolicy, PolicyOverrides } from '../shared/agent-policy.js';

export type { AgentPolicy, BackoffPolicy, PolicyOverrides } from '../shared/agent-policy.js';

export const DEFAULT_POLICY: AgentPolicy = {
  maxTurns: 16,
  maxToolCalls: 64,
  maxConsecutiveFailedBatches: 5,
  timeBudgetMs: null,
  retryBudgetPerTurn: 3,
  retryBudgetOnce: 1,
  loopThreshold: 3,
  maxRepairsPerTool: 3,
  backoff: { initialMs: 1_000, coefficient: 2, maxMs: 60_000, jitter: 0.2, maxRetryAfterMs: 600_000 },
  maxModelRetries: 2,
  maxNudges: 1,
  missingFieldsFrom: 'model',
  disableToolForTurns: null,
  onLoop: 'clarify',
  clarificationTimeoutMs: null,
  onClarificationTimeout: 'finalize',
};

/** The default policy with `overrides` applied (back-off merged field by field). */
export function resolvePolicy(...overrides: (PolicyOverrides | undefined)[]): AgentPolicy {
  let policy = DEFAULT_POLICY;
  for (const o of overrides) {
    if (o) policy = { ...policy, ...o, backoff: { ...policy.backoff, ...o.backoff } };
  }
  return policy;
}
