/**
 * ToolFailure: what a tool's `execute` throws for a failure it understands — rate limited,
 * unavailable, partial data, arguments it cannot use. The tool activity turns it into an error
 * ToolResult (never a Temporal retry); any other throw counts as a crash that Temporal retries.
 * Recognised with `ToolFailure.isInstance`, which works across module copies and the sandbox.
 * Workflow-safe to import (plain class, no I/O), deterministic.
 */
import type { JsonObject, JsonValue } from '../json/json.js';
import type { RetryHint } from './retry-hint.js';
import type { ToolErrorCode } from './failure-taxonomy.js';

export { ReservedValidatorNameError } from './definition-error.js';

const TOOL_FAILURE = Symbol.for('cairn.ToolFailure');

/** What a ToolFailure adds to its hint; `reason` and `tool` are always set by the activity. */
export type ToolFailureHint = Partial<RetryHint>;

export interface ToolFailureOptions {
  readonly hint?: ToolFailureHint;
  /** For partial data: what did come back. */
  readonly partialResult?: JsonValue;
  readonly cause?: unknown;
}

/** A typed failure thrown by a tool body; becomes an error ToolResult with `code`. */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
  readonly code: ToolErrorCode;
  // `declare`: absent stays absent (no own property holding undefined).
  declare readonly hint?: ToolFailureHint;
  declare readonly partialResult?: JsonValue;
  readonly [TOOL_FAILURE] = true;

  constructor(code: ToolErrorCode, message: string, options: ToolFailureOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.hint !== undefined) this.hint = options.hint;
    if (options.partialResult !== undefined) this.partialResult = options.partialResult;
  }

  /** True for any ToolFailure, even one from another copy of this module. */
  static isInstance(value: unknown): value is ToolFailure {
    return (
      typeof value === 'object' && value !== null && (value as { [TOOL_FAILURE]?: unknown })[TOOL_FAILURE] === true
    );
  }

  /** The API refused for now; the planner waits `retryAfterMs` (or backs off) and reruns. */
  static rateLimited(message: string, retryAfterMs?: number): ToolFailure {
    return new ToolFailure('rate_limited', message, retryAfterMs === undefined ? {} : { hint: { retryAfterMs } });
  }

  /** The backend cannot be reached; the planner disables the tool for a while. */
  static unavailable(message: string): ToolFailure {
    return new ToolFailure('tool_unavailable', message);
  }

  /** The arguments passed the schema but the tool cannot use them; the model repairs the call. */
  static invalidArguments(message: string, hint?: ToolFailureHint): ToolFailure {
    return new ToolFailure('invalid_arguments', message, hint === undefined ? {} : { hint });
  }

  /** Part of the data came back; `nextInput` fetches the rest (e.g. `{ page: 2 }`). */
  static partialData(
    partial: JsonValue,
    options: { readonly message: string; readonly nextInput?: JsonObject },
  ): ToolFailure {
    const hint =
      options.nextInput === undefined
        ? { message: options.message }
        : { message: options.message, nextInput: options.nextInput };
    return new ToolFailure('partial_data', options.message, { partialResult: partial, hint });
  }

  /** The call ran but its answer makes no sense (e.g. a name in an id field); rethink the call. */
  static semantic(message: string, hint?: ToolFailureHint): ToolFailure {
    return new ToolFailure('semantic_error', message, hint === undefined ? {} : { hint });
  }

  /** The tool gave up waiting on something it calls; back off and rerun. */
  static timeout(message: string): ToolFailure {
    return new ToolFailure('timeout', message);
  }
}
