/**
 * The knobs of the planner: budgets, caps, back-off and escalation. Plain data with defaults;
 * an agent or a run overrides any subset. Workflow-safe, deterministic.
 */

export interface BackoffPolicy {
  readonly initialMs: number;
  readonly coefficient: number;
  readonly maxMs: number;
  /** ± this fraction of the delay, derived from the call's hash: deterministic jitter. */
  readonly jitter: number;
}

export interface PlannerPolicy {
  /** Model turns before a forced final turn. */
  readonly maxTurns: number;
  /** Tool calls admitted over the run; a batch that would cross it is refused whole. */
  readonly maxToolCalls: number;
  /** Batches in a row in which every call failed, before a forced final turn. */
  readonly maxConsecutiveFailedBatches: number;
  /** Workflow time the run may be active, not counting waits for a human; null for none. */
  readonly timeBudgetMs: number | null;
  /** Runs of one (tool, args) per model turn, back-off re-runs included. */
  readonly retryBudgetPerTurn: number;
  /** The same budget for tools with `sideEffects: 'once'`. */
  readonly retryBudgetOnce: number;
  /** The same call failing the same way this many times across turns is a loop. */
  readonly loopThreshold: number;
  /** Repairs in a row asked of the model for one tool before escalating. */
  readonly maxRepairsPerTool: number;
  readonly backoff: BackoffPolicy;
  /** Retries of a structurally invalid model response (none, interrupted, empty). */
  readonly maxModelRetries: number;
  /** Nudges after a degenerate response (thinking only, nothing visible). */
  readonly maxNudges: number;
  /** Who supplies missing required fields: the model (repair) or the user (clarification). */
  readonly missingFieldsFrom: 'model' | 'user';
  /** How many turns an unavailable tool stays disabled; null for the rest of the run. */
  readonly disableToolForTurns: number | null;
  /** What a loop or exhausted repairs lead to. */
  readonly onLoop: 'clarify' | 'finalize';
  /** How long to wait for a clarification; null waits forever. */
  readonly clarificationTimeoutMs: number | null;
  /** On timeout: continue without an answer (the model is told), or finalize. */
  readonly onClarificationTimeout: 'continue' | 'finalize';
}

export const DEFAULT_POLICY: PlannerPolicy = {
  maxTurns: 16,
  maxToolCalls: 64,
  maxConsecutiveFailedBatches: 5,
  timeBudgetMs: null,
  retryBudgetPerTurn: 3,
  retryBudgetOnce: 1,
  loopThreshold: 3,
  maxRepairsPerTool: 3,
  backoff: { initialMs: 1_000, coefficient: 2, maxMs: 60_000, jitter: 0.2 },
  maxModelRetries: 2,
  maxNudges: 1,
  missingFieldsFrom: 'model',
  disableToolForTurns: null,
  onLoop: 'clarify',
  clarificationTimeoutMs: null,
  onClarificationTimeout: 'finalize',
};

/** The default policy with `overrides` applied (back-off merged field by field). */
export function resolvePolicy(...overrides: (Partial<PlannerPolicy> | undefined)[]): PlannerPolicy {
  let policy = DEFAULT_POLICY;
  for (const o of overrides) {
    if (o) policy = { ...policy, ...o, backoff: { ...policy.backoff, ...o.backoff } };
  }
  return policy;
}
