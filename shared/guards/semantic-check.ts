/**
 * A tool's semantic check and its verdict: the tool declares it (shared/tools/define-tool.ts), the
 * output guard runs it (output-guard.ts). Types only, so neither imports the other back.
 * Workflow-safe.
 */
import type { JsonObject, JsonValue } from '../json/json.js';

/** What a semantic check says about an output that passed the schema. */
export interface SemanticVerdict {
  /** `semantic_error`: rethink the call. `partial_data`: keep what came, fetch the rest. */
  readonly code: 'semantic_error' | 'partial_data';
  /** Plain advice for the model, e.g. "Page 1 of several; call again with page=2." */
  readonly message: string;
  /** Arguments to merge into the prior input for the next call, e.g. `{ page: 2 }`. */
  readonly nextInput?: JsonObject;
  /** For partial data: what to keep; defaults to the whole output. */
  readonly partial?: JsonValue;
}

/**
 * A tool's semantic check: `undefined` when the output makes sense. Must be pure. Declared as a
 * method type so a tool with specific types still fits `AnyTool`.
 */
export type SemanticCheck<Output = unknown, Args = unknown> = {
  check(output: Output, args: Args): SemanticVerdict | undefined;
}['check'];
