/**
 * ToolResult: the one value a tool call produces — success, a structured failure, or a validator's
 * refusal. Activities return it; they never throw it. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../json/json.js';
import type { RetryHint } from '../failures/retry-hint.js';
import type { ToolError } from '../failures/tool-error.js';
import type { ShadowViolation } from '../guards/shadow-violation.js';
import { FAILURES, type RetryReason, type ToolErrorCode } from '../failures/failure-taxonomy.js';

export interface ToolTelemetry {
  /** Wall time inside the activity; 0 for outcomes decided in the workflow. */
  readonly durationMs: number;
  /** Temporal attempt number; 0 when no activity ran. */
  readonly attempt: number;
}

/** Where a tool call's own run lives (an agent tool's child run), for people and UIs to follow. */
export interface RunLink {
  readonly workflowId: string;
  readonly runId: string;
}

interface ToolResultBase {
  readonly name: string;
  readonly toolCallId: string;
  readonly telemetry: ToolTelemetry;
  /** The child run that produced this result (agent tools). */
  readonly runLink?: RunLink;
  /** How many child runs the call started (agent tools: 1). */
  readonly childrenCount?: number;
  /** What output guards in shadow mode would have refused (never shown to the model). */
  readonly shadow?: readonly ShadowViolation[];
  /** Recorded from the tool's `reconcile` after an attempt whose outcome was unknown (never shown to the model). */
  readonly reconciled?: true;
}

export interface ToolSuccess extends ToolResultBase {
  readonly status: 'ok';
  readonly result: JsonValue;
}

export interface ToolFailureResult extends ToolResultBase {
  readonly status: 'error';
  readonly error: ToolError;
  readonly retryHint?: RetryHint;
  /** For partial data: what did come back. */
  readonly partialResult?: JsonValue;
}

/** A validator post-hook refused the result: its name and feedback, and no result. */
export interface ToolValidationFailure extends ToolResultBase {
  readonly status: 'validator_failed';
  readonly validator: string;
  readonly feedback: string;
}

export type ToolResult = ToolSuccess | ToolFailureResult | ToolValidationFailure;

/** The failure code of a result, or undefined for success. */
export function failureCode(result: ToolResult): ToolErrorCode | undefined {
  if (result.status === 'ok') return undefined;
  return result.status === 'validator_failed' ? 'validator_failed' : result.error.code;
}

/** The retry reason of a result, or undefined for success. */
export function failureReason(result: ToolResult): RetryReason | undefined {
  if (result.status === 'error' && result.retryHint) return result.retryHint.reason;
  const code = failureCode(result);
  return code === undefined ? undefined : FAILURES[code].reason;
}

export const NO_TELEMETRY: ToolTelemetry = { durationMs: 0, attempt: 0 };

/** The call a result answers. */
export interface ResultFor {
  readonly name: string;
  readonly toolCallId: string;
}

/**
 * The one way to build an error result: `error` with a hint whose `reason` comes from the
 * taxonomy (the error's code decides it, never the caller) and whose `tool` is the call's.
 */
export function errorResult(
  call: ResultFor,
  error: ToolError,
  hint: Partial<RetryHint> = {},
  extra: { readonly partialResult?: JsonValue; readonly telemetry?: ToolTelemetry } = {},
): ToolFailureResult {
  const { reason: _reason, tool: _tool, ...rest } = hint;
  return {
    status: 'error',
    name: call.name,
    toolCallId: call.toolCallId,
    error,
    retryHint: { reason: FAILURES[error.code].reason, tool: call.name, ...rest },
    ...(extra.partialResult === undefined ? {} : { partialResult: extra.partialResult }),
    telemetry: extra.telemetry ?? NO_TELEMETRY,
  };
}
