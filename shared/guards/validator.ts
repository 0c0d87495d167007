/**
 * Validator post-hooks (seed 000): judges bound to one tool that run after its body returns and
 * its output passed the guard, and tell the model in plain words when the result will not do.
 * Two forms with one behaviour: `validator(name, fn)` and a subclass of `Validator` (for
 * validators with state: a rule version, a tolerance). No registry; never in the tool spec.
 * Validators judge, they do not repair. Workflow-safe to import; hooks run in the tool activity.
 */
import type { JsonValue } from '../json/json.js';
import { fromError, type ToolError } from '../failures/tool-error.js';
import { toJsonValue } from '../json/json-safe.js';
import { DefinitionError, ReservedValidatorNameError } from '../failures/definition-error.js';

const RESULT: unique symbol = Symbol.for('cairn.ValidatorResult');

/** A validator's verdict: plain data, marked so a returned Result is told apart from a new value. */
export type Result<T = unknown> =
  | { readonly [RESULT]: true; readonly ok: true; readonly value?: T }
  | { readonly [RESULT]: true; readonly ok: false; readonly feedback: string };

export const Result = {
  /** Accept: with a value, it replaces the result; without, the tool's own result stands. */
  success<T>(value?: T): Result<T> {
    return value === undefined ? { [RESULT]: true, ok: true } : { [RESULT]: true, ok: true, value };
  },
  /** Refuse, with feedback the model can act on ("An ISBN must be 13 digits; only 10 are present"). */
  failure(feedback: string): Result<never> {
    return { [RESULT]: true, ok: false, feedback };
  },
  /** True for any Result, even from another copy of this module. */
  isResult(value: unknown): value is Result {
    return typeof value === 'object' && value !== null && (value as { [RESULT]?: unknown })[RESULT] === true;
  },
} as const;

/** Names Cairn uses for its own checks; a validator with one of them would be mistaken for Cairn. */
export const RESERVED_VALIDATOR_NAMES = [
  'schema',
  'input_schema',
  'output_schema',
  'output_guard',
  'semantic_check',
  'cairn',
  'retry_budget',
  'loop_detector',
  'approval',
] as const;

/** A validator post-hook. Subclass it (class form) or call `validator()` (function form). */
export abstract class Validator<Value = unknown, Args = unknown> {
  abstract readonly name: string;
  /** Return a Result (strict judgement) or any other value (which becomes the new result). May be async. */
  abstract run(value: Value, args: Args): unknown;
}

/** Throws DefinitionError for an unusable name and ReservedValidatorNameError for a reserved one. */
export function assertValidatorName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new DefinitionError(
      'invalid_validator_name',
      `Validator name ${JSON.stringify(name)} must be an identifier such as isbn_13 (named functions work too).`,
    );
  }
  // `outputSchema` and `OUTPUT_SCHEMA` are as confusing as `output_schema`.
  const folded = name.toLowerCase().replace(/_/g, '');
  if (RESERVED_VALIDATOR_NAMES.some((reserved) => reserved.replace(/_/g, '') === folded))
    throw new ReservedValidatorNameError(name);
}

type ValidatorFunction<Value, Args> = (value: Value, args: Args) => unknown;

/** The function form: `validator('isbn_13', fn)`, or `validator(fn)` named after `fn.name`. */
export function validator<Value, Args = unknown>(
  name: string,
  fn: ValidatorFunction<Value, Args>,
): Validator<Value, Args>;
export function validator<Value, Args = unknown>(fn: ValidatorFunction<Value, Args>): Validator<Value, Args>;
export function validator<Value, Args>(
  nameOrFn: string | ValidatorFunction<Value, Args>,
  maybeFn?: ValidatorFunction<Value, Args>,
): Validator<Value, Args> {
  const fn = typeof nameOrFn === 'function' ? nameOrFn : maybeFn;
  const name = typeof nameOrFn === 'function' ? nameOrFn.name : nameOrFn;
  if (typeof fn !== 'function')
    throw new DefinitionError('invalid_validator_name', `validator(${JSON.stringify(name)}) needs a function.`);
  assertValidatorName(name);
  return new FunctionValidator(name, fn);
}

/** The function form is the class form underneath, as in seed 000. */
class FunctionValidator<Value, Args> extends Validator<Value, Args> {
  constructor(
    readonly name: string,
    private readonly fn: ValidatorFunction<Value, Args>,
  ) {
    super();
  }
  run(value: Value, args: Args): unknown {
    return this.fn(value, args);
  }
}

export type PostHookOutcome =
  | { readonly status: 'ok'; readonly value: JsonValue }
  | { readonly status: 'validator_failed'; readonly validator: string; readonly feedback: string }
  | { readonly status: 'error'; readonly error: ToolError };

/**
 * Run post-hooks in order over a guarded result. Per hook: success with a value → that value;
 * success without → unchanged; failure → stop with the validator's name and feedback; any other
 * return → the new value (it must be JSON); a throw → `post_hook_error` with message
 * `post_hook <ErrorName>: <message>`. Never throws.
 */
export async function runPostHooks(
  hooks: readonly Validator[],
  value: JsonValue,
  args: JsonValue,
): Promise<PostHookOutcome> {
  let current = value;
  for (const hook of hooks) {
    let returned: unknown;
    try {
      returned = await hook.run(current, args);
    } catch (err) {
      const chain = fromError(err, 'post_hook_error');
      const message = `post_hook ${chain.name ?? 'Error'}: ${chain.message}`;
      return { status: 'error', error: { ...chain, code: 'post_hook_error', kind: 'internal', message } };
    }
    if (Result.isResult(returned)) {
      if (!returned.ok) {
        const feedback =
          typeof returned.feedback === 'string' && returned.feedback.trim()
            ? returned.feedback.trim()
            : `${hook.name} refused the result.`;
        return { status: 'validator_failed', validator: hook.name, feedback };
      }
      if (returned.value === undefined) continue;
      returned = returned.value;
    }
    const json = toJsonValue(returned);
    if (!json.ok) {
      const message = `post_hook ${hook.name} returned a value that is not JSON: ${json.message}`;
      return { status: 'error', error: { code: 'post_hook_error', kind: 'internal', message } };
    }
    current = json.value;
  }
  return { status: 'ok', value: current };
}
