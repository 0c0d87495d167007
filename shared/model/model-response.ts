/**
 * What a model call returns, normalized across providers, and what the model activity is asked.
 * Arguments stay raw JSON text here: parsing them is the workflow's job, so malformed JSON becomes
 * a structured `malformed_arguments` result instead of a crashed turn. Workflow-safe, deterministic.
 */
import type { ToolError } from '../failures/tool-error.js';
import type { CallUsage } from './model-usage.js';

/** A tool call exactly as the provider sent it. */
export interface RawToolCall {
  /** The provider's id for the call (e.g. `call_abc`), if it gave one. */
  readonly id?: string;
  readonly name: string;
  /** The arguments as the provider sent them: JSON text, possibly malformed. */
  readonly arguments: string;
  /**
   * Set when the argument text was over MAX_ARGUMENT_BYTES (shared/size-limits.ts): its size in
   * UTF-8 bytes. `arguments` then holds only its first characters, so the oversize text never
   * enters history; the workflow refuses the call as `invalid_arguments`, saying why.
   */
  readonly oversizeBytes?: number;
}

export interface ModelResponse {
  /** Visible text, possibly with a `<think>…</think>` block. */
  readonly text: string;
  readonly toolCalls: readonly RawToolCall[];
  readonly finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'other';
  /** A buffered partial from an interrupted stream: not a usable turn. */
  readonly interrupted?: boolean;
  /** Tokens the provider reported, and their cost when the worker has a price for the model. */
  readonly usage?: CallUsage;
}

/**
 * What kind of model failure an error outcome is, for the planner: the provider refused for now
 * (`rate_limited`: HTTP 429; `overloaded`: 529, 503, "overloaded"), the worker's flow control held
 * the call back before sending it (`throttled`, retry-after is when its permit comes), the provider
 * failed past Temporal's retries (`unavailable`: 5xx, network), or the model cannot be used as
 * configured (`misconfigured`: 404 unknown model, 401/403 credentials), or the run's tenant has
 * spent a window of its budget (`tenant_budget`: the call was not sent; docs/operations.md,
 * "Per-tenant limits"). The first four are waits (up to the policy's `modelPatienceMs`);
 * `misconfigured` ends the run `model_misconfigured`; `tenant_budget` is the run's budget end.
 */
export const MODEL_FAILURES = [
  'rate_limited',
  'overloaded',
  'throttled',
  'unavailable',
  'misconfigured',
  'tenant_budget',
] as const;
export type ModelFailure = (typeof MODEL_FAILURES)[number];

/** A tenant's spent budget window (failure `tenant_budget`): which, which limit, how much was used of how much. */
export interface TenantWindowSpent {
  readonly tenant: string;
  readonly window: 'day' | 'month';
  /** `2026-11-26` for a UTC day, `2026-11` for a UTC month. */
  readonly id: string;
  readonly limit: 'tokens' | 'cost';
  readonly used: number;
  readonly max: number;
}

/** Why a run wraps up near its tenant's window (`tenantWindowNear` of an ok outcome: the window had reached the worker's `wrapUpAt` of it). */
export function tenantWindowNearText(near: TenantWindowSpent): string {
  const what = near.limit === 'tokens' ? `${near.used} of ${near.max} tokens` : `${near.used} of ${near.max} USD`;
  return `tenant "${near.tenant}" has nearly used its ${near.window === 'day' ? 'daily' : 'monthly'} ${near.limit === 'tokens' ? 'token' : 'cost'} budget (${what} in ${near.id} UTC)`;
}

/** What a run stopped at a tenant's spent window says. */
export function tenantWindowText(spent: TenantWindowSpent): string {
  const what = spent.limit === 'tokens' ? `${spent.used} of ${spent.max} tokens` : `${spent.used} of ${spent.max} USD`;
  return `tenant "${spent.tenant}" has used its ${spent.window === 'day' ? 'daily' : 'monthly'} ${spent.limit === 'tokens' ? 'token' : 'cost'} budget (${what} in ${spent.id} UTC)`;
}

/** The model activity's answer: a response (or none at all), or a typed provider failure. */
export type ModelOutcome =
  | { readonly status: 'ok'; readonly response: ModelResponse | null; readonly tenantWindowNear?: TenantWindowSpent }
  | {
      readonly status: 'error';
      readonly error: ToolError;
      readonly retryAfterMs?: number;
      readonly failure?: ModelFailure;
      readonly tenantWindow?: TenantWindowSpent;
    };

/** Which tools the model may call this turn. */
export type ToolChoice = 'auto' | 'none' | { readonly tool: string };

/** A model request with the run it reads named: what the model activity works from. */
export type RunModelRequest = ModelRequest & {
  readonly workflowId: string;
  readonly runId: string;
  readonly firstExecutionRunId: string;
};

/**
 * The model activity's input. It carries no transcript: the activity reads the transcript from
 * its own run through `transcriptQuery`, so history does not grow with the square of the turns.
 */
export interface ModelRequest {
  /**
   * The run asking. Left out by runs of today: the activity knows its own run (activityInfo), and
   * the ids cost ~130 bytes of history a turn. Runs from before sent them; a request that names
   * another run is read from that run.
   */
  readonly workflowId?: string;
  readonly runId?: string;
  /** The chain's first run, with the workflow id naming the run across continue-as-new; left out while it is this run. */
  readonly firstExecutionRunId?: string;
  /** Read exactly this many transcript messages (the transcript as of this turn). */
  readonly transcriptLength: number;
  /**
   * Bumped each time the run rewrites earlier messages (the context policy trims or leaves out
   * old turns): a reader may keep what it read of this run while the epoch is the same.
   */
  readonly transcriptEpoch?: number;
  /** The digest of those messages (transcript-digest.ts): what is read is checked against it. Absent in older runs. */
  readonly transcriptDigest?: string;
  /** The tools the model may see this turn, by name: the worker has their specs, so history need not. */
  readonly toolNames: readonly string[];
  readonly toolChoice: ToolChoice;
  /** Which configured model to use (e.g. `scripted:orders-demo`, `openai:gpt-4.1-mini`). */
  readonly model: string;
  /** The tenant the run belongs to, for the worker's per-tenant budgets; left out for runs of no tenant. */
  readonly tenant?: string;
  /**
   * What a person allowed this run past its tenant's spent window (a budget request they extended),
   * still unused: the call goes even though the window is spent, and is charged to it.
   */
  readonly tenantAllowance?: { readonly tokens: number; readonly costUsd: number };
}
