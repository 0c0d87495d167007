/**
 * How the planner treats an agent's runs: budgets, caps, back-off and escalation. Plain data; the
 * planner holds the defaults (planner/policy.ts), an agent or a run overrides any subset.
 * Workflow-safe.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';

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

/** How much of the conversation the model is shown (planner/context-window.ts). */
export interface ContextPolicy {
  /** The transcript's budget, in characters of JSON (about 4 per token). */
  readonly maxChars: number;
  /** The latest model turns kept whole while older ones can be trimmed or left out. */
  readonly keepRecentTurns: number;
  /** Tool results of older turns longer than this become a preview first. */
  readonly oldResultChars: number;
}

/** When a run hands over to a new one (continue-as-new), whatever Temporal suggests. */
export interface HistoryPolicy {
  /** History bytes (`workflowInfo().historySize`); Temporal warns at 10 MB. */
  readonly maxBytes: number;
  /** History events (`workflowInfo().historyLength`); Temporal warns at 10,240. */
  readonly maxEvents: number;
}

/**
 * A run's spending limits (planner/plan-budget.ts). Usage comes from the provider (tokens) and the
 * worker's price table (cost). Near a limit (`wrapUpAt` of it) the model is asked for its final
 * answer in one wrap-up turn; at a limit the run ends `budget_exhausted`, or asks a person to
 * extend it (`onExhausted: 'ask'`, answered with `extendBudgetUpdate`).
 */
export interface BudgetPolicy {
  /** Tokens in and out over the run (all models, across continue-as-new); null for no limit. */
  readonly maxTokens: number | null;
  /** Cost over the run, in the unit of the worker's price table (US dollars); null for no limit. */
  readonly maxCostUsd: number | null;
  /** The fraction of a limit at which the model is asked for its final answer (0.9: at 90%). */
  readonly wrapUpAt: number;
  /** At a limit: end the run, or ask a person to extend the budget (or stop). */
  readonly onExhausted: 'end' | 'ask';
}

export interface AgentPolicy {
  /** Model turns before a forced final turn. */
  readonly maxTurns: number;
  /** Tool calls admitted over the run; a batch that would cross it is refused whole. */
  readonly maxToolCalls: number;
  /** Calls of one model turn that run; the rest of a larger batch are refused (`too_many_calls`). */
  readonly maxCallsPerTurn: number;
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
  /** Retries of a structurally invalid model response (none, interrupted, empty). Rate limits do not count. */
  readonly maxModelRetries: number;
  /**
   * How long a run keeps waiting for its model provider, in ms, from the first refusal of a turn
   * (429, 529/overloaded, flow control, a provider down past Temporal's retries). Each wait is a
   * durable timer with full jitter; past this (or past the time budget) the run ends `model_unavailable`.
   */
  readonly modelPatienceMs: number;
  /**
   * A model that cannot be used (`model_misconfigured`) or stays unavailable (`model_unavailable`):
   * `fail` the run (a Temporal failure of that type, status Failed), or `end` it softly (completed,
   * with that outcome and a non-answer).
   */
  readonly onModelFailure: 'fail' | 'end';
  readonly budget: BudgetPolicy;
  /** Nudges after a degenerate response (thinking only, nothing visible). */
  readonly maxNudges: number;
  /** Who supplies missing required fields: the model (repair) or the user (clarification). */
  readonly missingFieldsFrom: 'model' | 'user';
  /** How many turns an unavailable tool stays disabled; null for the rest of the run. */
  readonly disableToolForTurns: number | null;
  /** What a loop or exhausted repairs lead to. */
  readonly onLoop: 'clarify' | 'finalize';
  readonly context: ContextPolicy;
  readonly history: HistoryPolicy;
  /** How long to wait for a clarification; null waits forever. */
  readonly clarificationTimeoutMs: number | null;
  /** On timeout: continue without an answer (the model is told), or finalize. */
  readonly onClarificationTimeout: 'continue' | 'finalize';
  /** A `once` call whose outcome is unknown (its worker died mid-call): ask a person what happened, or only tell the model. */
  readonly onOutcomeUnknown: 'clarify' | 'inform';
  /**
   * A batch with calls held for review: `hold_batch` (default) runs its other calls with the
   * reviewed ones once every review is decided; `run_others` runs them at once, and each held
   * call as its own decision comes. Either way the model gets the batch's results together.
   */
  readonly whileReviewing: 'hold_batch' | 'run_others';
  /**
   * What a message a person sends while the run works does (`run.send`, docs/run-api.md):
   * `enqueue` delivers it before the next model turn, `interrupt` also cuts the model call in
   * flight short (never a tool), `reject` refuses it while a step runs.
   */
  readonly onMessage: 'enqueue' | 'interrupt' | 'reject';
  /** How long a finished run waits for a reader that follows its stream to read the end, in ms (0: never). */
  readonly readerLingerMs: number;
}

/** The policy's groups of settings, overridden field by field. */
type Group = 'backoff' | 'context' | 'history' | 'budget';

/** What an agent or a run may override: any field, and any field of a group (`backoff`, `context`, `history`). */
export type PolicyOverrides = Partial<Omit<AgentPolicy, Group>> & { readonly [G in Group]?: Partial<AgentPolicy[G]> };

// The schema below must describe exactly PolicyOverrides: adding a policy field without it fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Checked = z.output<typeof policyOverridesSchema>;
const _sameKeys: Same<keyof Checked, keyof PolicyOverrides> &
  Same<keyof NonNullable<Checked['backoff']>, keyof BackoffPolicy> &
  Same<keyof NonNullable<Checked['context']>, keyof ContextPolicy> &
  Same<keyof NonNullable<Checked['history']>, keyof HistoryPolicy> &
  Same<keyof NonNullable<Checked['budget']>, keyof BudgetPolicy> = true;
const _sameTypes: Same<Checked, { -readonly [K in keyof PolicyOverrides]: PolicyOverrides[K] }> = true;

/**
 * The shape of `PolicyOverrides`, checked where overrides arrive from outside (a client's
 * `AgentRunInput.policy`, an agent's definition): a value the planner cannot use (a string for a
 * count, a negative delay, an unknown key) is refused with a message naming the field. Built on
 * first use, once per workflow thread (shared/lazy-schema.ts): keep `.describe()` out of it.
 */
export const policyOverridesSchema = lazySchema(
  () => {
    const count = z.number().int().min(0);
    const atLeastOne = z.number().int().min(1);
    const ms = z.number().min(0).max(Number.MAX_SAFE_INTEGER);
    return z
      .strictObject({
        maxTurns: atLeastOne,
        maxToolCalls: count,
        maxCallsPerTurn: atLeastOne,
        maxConsecutiveFailedBatches: atLeastOne,
        timeBudgetMs: ms.nullable(),
        retryBudgetPerTurn: atLeastOne,
        retryBudgetOnce: atLeastOne,
        loopThreshold: atLeastOne,
        maxRepairsPerTool: count,
        backoff: z
          .strictObject({
            initialMs: ms,
            coefficient: z.number().min(1).max(100),
            maxMs: ms,
            maxRetryAfterMs: ms,
            jitter: z.number().min(0).max(1),
          })
          .partial(),
        maxModelRetries: count,
        modelPatienceMs: ms,
        onModelFailure: z.enum(['fail', 'end']),
        budget: z
          .strictObject({
            maxTokens: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable(),
            maxCostUsd: z.number().positive().max(1e9).nullable(),
            wrapUpAt: z.number().min(0).max(1),
            onExhausted: z.enum(['end', 'ask']),
          })
          .partial(),
        maxNudges: count,
        missingFieldsFrom: z.enum(['model', 'user']),
        disableToolForTurns: atLeastOne.nullable(),
        onLoop: z.enum(['clarify', 'finalize']),
        context: z
          .strictObject({
            maxChars: z.number().int().min(10_000),
            keepRecentTurns: atLeastOne,
            oldResultChars: z.number().int().min(100),
          })
          .partial(),
        history: z
          .strictObject({
            maxBytes: z.number().int().min(100_000).max(50_000_000),
            maxEvents: z.number().int().min(100).max(50_000),
          })
          .partial(),
        clarificationTimeoutMs: ms.nullable(),
        onClarificationTimeout: z.enum(['continue', 'finalize']),
        onOutcomeUnknown: z.enum(['clarify', 'inform']),
        whileReviewing: z.enum(['hold_batch', 'run_others']),
        onMessage: z.enum(['enqueue', 'interrupt', 'reject']),
        readerLingerMs: z.number().int().min(0).max(60_000),
      })
      .partial();
  },
  { sharedAs: 'cairn.policyOverrides' },
);
