/**
 * The steps of a scripted model's script, and helpers to write them. A step is a fixed answer, a
 * provider failure, an invalid response (seed 004), a thrown infrastructure error, or a reactive
 * function of the transcript. Worker-side and tests; deterministic.
 */
import type { ToolSpec } from '../shared/tools/define-tool.js';
import type { JsonObject } from '../shared/json/json.js';
import type { ModelResponse, ToolChoice } from '../shared/model/model-response.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';

/**
 * A tool call a script makes. String `arguments` are sent verbatim, so a script can send malformed
 * JSON; an object is JSON-encoded.
 */
export interface ScriptedCall {
  readonly name: string;
  readonly arguments: string | JsonObject;
}

/** What a reactive step sees: the request it answers, and where it stands in the script. */
export interface ScriptContext {
  readonly messages: readonly TranscriptMessage[];
  readonly tools: readonly ToolSpec[];
  readonly toolChoice: ToolChoice;
  /** The script's name and this step's index, for error messages. */
  readonly script: string;
  readonly step: number;
}

/** Provider failures a script can answer with, as error outcomes. */
export type ScriptedFailureCode = 'rate_limited' | 'tool_unavailable' | 'internal_error';

/** Invalid responses (seed 004): none at all, a cut stream, neither text nor calls, only `<think>`. */
export type InvalidShape = 'null' | 'interrupted' | 'empty' | 'think-only';

/** A step with a fixed answer: what a reactive step produces. */
export type FixedStep =
  | {
      readonly kind: 'respond';
      readonly text?: string;
      readonly calls?: readonly ScriptedCall[];
      /** Default: `tool_calls` when there are calls, else `stop`. */
      readonly finishReason?: ModelResponse['finishReason'];
      /** The usage the reply reports (tokens, cost), for budget tests. */
      readonly usage?: ModelResponse['usage'];
    }
  | {
      readonly kind: 'fail';
      readonly code: ScriptedFailureCode;
      readonly message?: string;
      readonly retryAfterMs?: number;
    }
  | { readonly kind: 'invalid'; readonly shape: InvalidShape; readonly text?: string }
  /** Thrown as `ModelServerError` / `ModelNetworkError`, for Temporal's retry policy to handle. */
  | { readonly kind: 'throw'; readonly error: 'server' | 'network'; readonly statusCode?: number };

/** One step of a script. */
export type ScriptStep =
  | FixedStep
  | { readonly kind: 'react'; readonly label?: string; readonly produce: (context: ScriptContext) => FixedStep };

/** A script: the steps, answered one per model call, in order. */
export type Script = readonly ScriptStep[];

/** Helpers that build script steps. */
export const scriptStep = {
  /** A plain text answer (a final answer, unless the workflow judges otherwise). */
  text: (text: string): FixedStep => ({ kind: 'respond', text }),
  /** One tool call; string arguments are sent verbatim (possibly malformed JSON). */
  call: (name: string, args: string | JsonObject, text?: string): FixedStep => ({
    kind: 'respond',
    calls: [{ name, arguments: args }],
    ...(text !== undefined && { text }),
  }),
  /** Several tool calls in one response. */
  calls: (calls: readonly ScriptedCall[], text?: string): FixedStep => ({
    kind: 'respond',
    calls,
    ...(text !== undefined && { text }),
  }),
  /** The provider rate-limited the call. */
  rateLimited: (retryAfterMs?: number, message?: string): FixedStep => ({
    kind: 'fail',
    code: 'rate_limited',
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    ...(message !== undefined && { message }),
  }),
  /** The provider refused the credentials or does not know the model. */
  unavailable: (message?: string): FixedStep => ({
    kind: 'fail',
    code: 'tool_unavailable',
    ...(message !== undefined && { message }),
  }),
  /** No response at all. */
  nullResponse: (): FixedStep => ({ kind: 'invalid', shape: 'null' }),
  /** A buffered partial from a cut stream. */
  interrupted: (partialText = ''): FixedStep => ({ kind: 'invalid', shape: 'interrupted', text: partialText }),
  /** Neither text nor tool calls. */
  empty: (): FixedStep => ({ kind: 'invalid', shape: 'empty' }),
  /** Only a `<think>…</think>` block: structurally valid, degenerate. */
  thinkOnly: (thought = 'Let me think about this.'): FixedStep => ({
    kind: 'invalid',
    shape: 'think-only',
    text: thought,
  }),
  /** Throws a retryable `ModelServerError` (default HTTP 500). */
  serverError: (statusCode = 500): FixedStep => ({ kind: 'throw', error: 'server', statusCode }),
  /** Throws a retryable `ModelNetworkError`. */
  networkError: (): FixedStep => ({ kind: 'throw', error: 'network' }),
  /** A step computed from the request, e.g. a repair of the last failed call. */
  react: (produce: (context: ScriptContext) => FixedStep, label?: string): ScriptStep => ({
    kind: 'react',
    produce,
    ...(label !== undefined && { label }),
  }),
};
