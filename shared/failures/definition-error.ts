/**
 * Errors in a tool or agent *definition*, thrown once when the module loads (never at run time):
 * a bad tool name, a reserved validator name, an example that fails its own schema.
 * Thrown errors follow one convention: a stable `name`, a `Symbol.for` marker and a static
 * `isInstance` that works across module copies and the workflow sandbox, and a snake_case `code`.
 * Workflow-safe, deterministic.
 */

export const DefinitionErrorCode = {
  InvalidToolName: 'invalid_tool_name',
  InvalidToolDescription: 'invalid_tool_description',
  InvalidInputSchema: 'invalid_input_schema',
  InvalidExample: 'invalid_example',
  InvalidReviewConfig: 'invalid_review_config',
  InvalidReconcile: 'invalid_reconcile',
  InvalidValidatorName: 'invalid_validator_name',
  ReservedValidatorName: 'reserved_validator_name',
  InvalidAgent: 'invalid_agent',
  DuplicateToolName: 'duplicate_tool_name',
  DuplicateAgentName: 'duplicate_agent_name',
  InvalidMcpServer: 'invalid_mcp_server',
  DuplicateMcpServer: 'duplicate_mcp_server',
  InvalidA2AAgent: 'invalid_a2a_agent',
  InvalidNeeds: 'invalid_needs',
  /** A tool's `workspace` is not a boolean, or a workspace tool is `once`. */
  InvalidToolWorkspace: 'invalid_tool_workspace',
  /** A tool's `needs` names a key of deps the worker was not given. */
  MissingDeps: 'missing_deps',
  /** A `defineEval` value (shared/eval/define-eval.ts) is wrong. */
  InvalidEval: 'invalid_eval',
} as const;
export type DefinitionErrorCode = (typeof DefinitionErrorCode)[keyof typeof DefinitionErrorCode];

const DEFINITION_ERROR = Symbol.for('cairn.DefinitionError');

/** A tool or agent definition is wrong; fix the definition, retrying cannot help. */
export class DefinitionError extends Error {
  override readonly name: string = 'DefinitionError';
  readonly code: DefinitionErrorCode;
  readonly [DEFINITION_ERROR] = true;

  constructor(code: DefinitionErrorCode, message: string) {
    super(message);
    this.code = code;
  }

  static isInstance(value: unknown): value is DefinitionError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [DEFINITION_ERROR]?: unknown })[DEFINITION_ERROR] === true
    );
  }
}

const RESERVED_VALIDATOR_NAME = Symbol.for('cairn.ReservedValidatorNameError');

/** A validator took a name Cairn keeps for its own checks (see RESERVED_VALIDATOR_NAMES). */
export class ReservedValidatorNameError extends DefinitionError {
  override readonly name = 'ReservedValidatorNameError';
  readonly validatorName: string;
  readonly [RESERVED_VALIDATOR_NAME] = true;

  constructor(validatorName: string) {
    super('reserved_validator_name', `Validator name "${validatorName}" is reserved by Cairn; choose another name.`);
    this.validatorName = validatorName;
  }

  static override isInstance(value: unknown): value is ReservedValidatorNameError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [RESERVED_VALIDATOR_NAME]?: unknown })[RESERVED_VALIDATOR_NAME] === true
    );
  }
}
