/**
 * ModelClient: the one interface Cairn uses to talk to a language model. The model activity is
 * `readTranscript(request)` followed by `client.generate(...)`; everything provider-specific sits
 * behind this interface. Worker-side only (never import from workflows/, planner/ or shared/).
 */
import type { ToolSpec } from '../../shared/tools/define-tool.js';
import type { ModelOutcome, ToolChoice } from '../../shared/model/model-response.js';
import type { TranscriptMessage } from '../../shared/model/transcript.js';
import type { ModelDelta } from '../../shared/live/model-delta.js';

/** What one model call is given: the transcript as of this turn, the tools and the tool choice. */
export interface GenerateInput {
  readonly messages: readonly TranscriptMessage[];
  readonly tools: readonly ToolSpec[];
  readonly toolChoice: ToolChoice;
  /** Aborts the provider request (the activity wires it to Temporal cancellation). */
  readonly signal?: AbortSignal;
  /**
   * The run asking, `<workflowId>/<firstExecutionRunId>`: stable across continue-as-new, and new
   * for a new run that reuses a workflow id. For clients that keep state per run.
   */
  readonly runKey?: string;
  /**
   * Set when the run streams (docs/models.md): a client that can stream calls it with each piece
   * of the answer as it arrives, and still resolves to the whole outcome. Clients that cannot
   * stream ignore it; the turn is the same either way.
   */
  readonly onDelta?: (delta: ModelDelta) => void;
}

/**
 * A language model as Cairn sees it.
 *
 * `generate` resolves to a `ModelOutcome` for every answer it can classify: a response (possibly
 * `null`, empty, think-only or interrupted: the workflow judges those), a `rate_limited` error with
 * `retryAfterMs`, or a `tool_unavailable` / `internal_error` error that retrying will not fix.
 * It throws only for failures worth retrying unchanged: `ModelServerError` (HTTP 5xx, 408, 409)
 * and `ModelNetworkError` (no answer), so Temporal's activity retry policy handles them.
 * Malformed tool-call JSON never throws: it arrives as raw text in `RawToolCall.arguments`.
 * Not deterministic; safe to retry (a model call has no side effects).
 */
export interface ModelClient {
  generate(input: GenerateInput): Promise<ModelOutcome>;
}
