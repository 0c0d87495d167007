/**
 * Reconciling a `once` call whose outcome is unknown (its attempt timed out or its worker died):
 * the tool's own `reconcile` asks the system it acts on whether the effect with this idempotency
 * key happened. What it answers, and the plain data the reconcile activity hands the workflow.
 * Workflow-safe, deterministic.
 */
import type { JsonValue } from '../json/json.js';
import type { RunToolInput } from './run-tool-input.js';
import type { ToolCall } from './tool-call.js';
import type { ToolResult } from './tool-result.js';

/**
 * What a tool's `reconcile` found: the effect happened (and what `execute` would have returned),
 * it did not happen (the call runs again under the same key), or nobody can tell (a person is asked).
 */
export type ReconcileOutcome<Output = unknown> =
  | { readonly happened: true; readonly result: Output }
  | { readonly happened: false }
  | { readonly unknown: string };

/** What `reconcile` receives: the key the lost attempt ran under, and its arguments. */
export interface ReconcileInput<Args = JsonValue> {
  readonly idempotencyKey: string;
  readonly args: Args;
}

/** One call to reconcile, as the planner asks for it. */
export interface ReconcileCall {
  readonly call: ToolCall;
  readonly idempotencyKey: string;
}

/** The reconcile activity's answer: `result` is what `execute`'s output would have become (guarded, bounded). */
export type ReconcileReport =
  | { readonly toolCallId: string; readonly happened: true; readonly result: ToolResult }
  | { readonly toolCallId: string; readonly happened: false }
  | { readonly toolCallId: string; readonly unknown: string };

/** The reconcile activity's input: the call as the tool activity got it, and the key it ran under. */
export type ReconcileToolInput = RunToolInput & { readonly idempotencyKey: string };
