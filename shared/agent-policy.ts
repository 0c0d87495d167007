/**
 * How the planner treats an agent's runs: budgets, caps, back-off and escalation. Plain data; the
 * planner holds the defaults (planner/policy.ts), an agent or a run overrides any subset.
 * Workflow-safe.
 */

export interface BackoffPolicy {
  readonly initialMs: number;
  readonly coefficient: number;
  /** Ceiling of the exponential delay, jitter included. */
  readonly maxMs: number;
  /**
   * The longest retry-after Cairn waits out (a tool's or a provider's). A tool asking for longer
   * is not re-run: its failure goes to the model, hint included. A provider is waited this long.
   */
  readonly maxRetryAfterMs: number;
  /** ± this fraction of the delay, derived from the call's hash: deterministic jitter. */
  readonly jitter: number;
}

export interface AgentPolicy {
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

/** What an agent or a run may override: any field, and any field of `backoff`. */
export type PolicyOverrides = Partial<Omit<AgentPolicy, 'backoff'>> & { readonly backoff?: Partial<BackoffPolicy> };
