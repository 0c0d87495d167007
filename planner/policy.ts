/**
 * The planner's default policy and how overrides apply to it. The policy's shape is shared
 * (shared/agent/agent-policy.ts) so agents can be defined without the planner. Deterministic.
 */
import type { AgentPolicy, PolicyOverrides } from '../shared/agent/agent-policy.js';

export type {
  AgentPolicy,
  BackoffPolicy,
  BudgetPolicy,
  ContextPolicy,
  HistoryPolicy,
  PolicyOverrides,
} from '../shared/agent/agent-policy.js';

export const DEFAULT_POLICY: AgentPolicy = {
  maxTurns: 16,
  maxToolCalls: 64,
  maxCallsPerTurn: 32,
  maxConsecutiveFailedBatches: 5,
  timeBudgetMs: null,
  retryBudgetPerTurn: 3,
  retryBudgetOnce: 1,
  loopThreshold: 3,
  maxRepairsPerTool: 3,
  backoff: { initialMs: 1_000, coefficient: 2, maxMs: 60_000, jitter: 0.2, maxRetryAfterMs: 600_000 },
  maxModelRetries: 2,
  modelPatienceMs: 600_000,
  onModelFailure: 'fail',
  budget: { maxTokens: null, maxCostUsd: null, wrapUpAt: 0.9, onExhausted: 'end' },
  maxNudges: 1,
  missingFieldsFrom: 'model',
  disableToolForTurns: null,
  context: { maxChars: 400_000, keepRecentTurns: 6, oldResultChars: 2_000 },
  // Below Temporal's warnings (10 MB, 10,240 events), with room for a turn's growth.
  history: { maxBytes: 5_000_000, maxEvents: 5_000 },
  onLoop: 'clarify',
  clarificationTimeoutMs: null,
  onClarificationTimeout: 'finalize',
  onOutcomeUnknown: 'clarify',
  whileReviewing: 'hold_batch',
  onMessage: 'enqueue',
  readerLingerMs: 5_000,
};

/** The default policy with `overrides` applied (groups such as `backoff` merged field by field). */
export function resolvePolicy(...overrides: (PolicyOverrides | undefined)[]): AgentPolicy {
  let policy = DEFAULT_POLICY;
  for (const o of overrides) {
    if (!o) continue;
    policy = {
      ...policy,
      ...o,
      backoff: { ...policy.backoff, ...o.backoff },
      context: { ...policy.context, ...o.context },
      history: { ...policy.history, ...o.history },
      budget: { ...policy.budget, ...o.budget },
    };
  }
  return policy;
}
