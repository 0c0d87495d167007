/**
 * The boundary check on what a model client returns. `ModelClient` is a public extension point,
 * so its answer is untrusted data: `arguments` may not be a string, `toolCalls` may be null, a
 * getter may throw, a reply may carry 1,000 calls or 5 MB of text. `checkModelOutcome` turns any
 * value into a well-formed, bounded `ModelOutcome` — rebuilt from the known fields only, so extra
 * keys and exotic objects never enter history — or into a `malformed_model_output` error outcome
 * that says what was wrong. Runs in the model activity and again in the workflow on the
 * activity's result. Workflow-safe, deterministic, never throws, linear in the reply's size.
 */
import {
  MODEL_FAILURES,
  type ModelFailure,
  type TenantWindowSpent,
  type ModelOutcome,
  type ModelResponse,
  type RawToolCall,
} from './model-response.js';
import { MAX_CAUSE_DEPTH, fromError, isToolError, toolError, truncateChain } from '../failures/tool-error.js';
import { jsonSize, utf8Bytes } from '../json/json-measure.js';
import { boundChain } from '../tools/tool-result-size.js';
import { truncateText } from '../json/bounded-text.js';
import {
  MAX_ARGUMENT_BYTES,
  MAX_CALL_NAME_CHARS,
  MAX_MODEL_REPLY_BYTES,
  MAX_TOOL_CALLS_PER_REPLY,
} from '../size-limits.js';

/** The bounds a model outcome must keep (defaults in shared/size-limits.ts). */
export interface ModelOutcomeLimits {
  /** UTF-8 bytes of the whole reply as JSON. */
  readonly maxReplyBytes: number;
  /** Tool calls in one reply. */
  readonly maxToolCalls: number;
  /** UTF-8 bytes of one call's argument text; longer text is cut and the call marked `oversizeBytes`. */
  readonly maxArgumentBytes: number;
  /** Characters of a call's name or id. */
  readonly maxNameChars: number;
}

export const DEFAULT_MODEL_OUTCOME_LIMITS: ModelOutcomeLimits = {
  maxReplyBytes: MAX_MODEL_REPLY_BYTES,
  maxToolCalls: MAX_TOOL_CALLS_PER_REPLY,
  maxArgumentBytes: MAX_ARGUMENT_BYTES,
  maxNameChars: MAX_CALL_NAME_CHARS,
};

/** Characters of an oversize argument text kept, so the model sees what it sent. */
const ARGUMENT_EXCERPT_CHARS = 500;

const FINISH_REASONS: ReadonlySet<string> = new Set([
  'stop',
  'tool_calls',
  'length',
  'content_filter',
  'error',
  'other',
]);

const SHAPE =
  "A ModelClient resolves to { status: 'ok', response: { text, toolCalls: [{ id?, name, arguments: '<JSON text>' }], finishReason } | null } " +
  "or { status: 'error', error: ToolError, retryAfterMs? } (docs/models.md).";

/** Thrown inside the check only; always caught and turned into an outcome. */
class Malformed {
  constructor(readonly message: string) {}
}

/**
 * `value` as a well-formed ModelOutcome, or a `malformed_model_output` error outcome. Absent (or
 * null) `text` and `toolCalls` mean none; an unknown `finishReason` becomes `other`; usage keeps
 * only finite non-negative counts; `interrupted` only `true`. Checking a checked outcome again
 * gives an equal outcome.
 */
export function checkModelOutcome(value: unknown, limits: Partial<ModelOutcomeLimits> = {}): ModelOutcome {
  const bounds = { ...DEFAULT_MODEL_OUTCOME_LIMITS, ...limits };
  try {
    const outcome = readOutcome(value, bounds);
    if (outcome.status === 'ok' && outcome.response !== null) {
      const bytes = jsonSize(outcome, bounds.maxReplyBytes);
      if (bytes > bounds.maxReplyBytes) {
        const { text, toolCalls } = outcome.response;
        const size = jsonSize(outcome);
        return malformed(
          `the reply is ${size} bytes of JSON (${text.length} characters of text, ${toolCalls.length} tool call(s)), over the limit of ${bounds.maxReplyBytes} bytes; ask for a shorter answer, or raise the model activity's maxReplyBytes`,
          false,
        );
      }
    }
    return outcome;
  } catch (err) {
    if (err instanceof Malformed) return malformed(err.message);
    return malformed(`reading it threw (${fromError(err).message})`);
  }
}

/** True when `outcome` is the check's own refusal (for counting and tests). */
export function isMalformedModelOutput(outcome: ModelOutcome): boolean {
  return outcome.status === 'error' && outcome.error.code === 'malformed_model_output';
}

function malformed(problem: string, shape = true): ModelOutcome {
  const message = truncateText(
    `The model client returned a reply Cairn cannot use: ${problem}.${shape ? ` ${SHAPE}` : ''}`,
    1_000,
  );
  return { status: 'error', error: toolError('malformed_model_output', message) };
}

function readOutcome(value: unknown, bounds: ModelOutcomeLimits): ModelOutcome {
  if (!isRecord(value)) throw new Malformed(`the outcome is ${kindOf(value)}, not an object`);
  const status = read(value, 'status', 'status');
  if (status === 'error') return readError(value);
  if (status !== 'ok') throw new Malformed(`\`status\` is ${describe(status)}, not "ok" or "error"`);
  const response = read(value, 'response', 'response');
  // Near the run's tenant's budget window (the worker's per-tenant budgets): the planner wraps up.
  const near = readTenantWindow(read(value, 'tenantWindowNear', 'tenantWindowNear'));
  if (response === undefined || response === null)
    return { status: 'ok', response: null, ...(near && { tenantWindowNear: near }) };
  return { status: 'ok', response: readResponse(response, bounds), ...(near && { tenantWindowNear: near }) };
}

function readError(value: Record<string, unknown>): ModelOutcome {
  const error = read(value, 'error', 'error');
  const retryAfterMs = read(value, 'retryAfterMs', 'retryAfterMs');
  const retry =
    typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0 ? { retryAfterMs } : {};
  const failure = read(value, 'failure', 'failure');
  const kind = (MODEL_FAILURES as readonly unknown[]).includes(failure) ? { failure: failure as ModelFailure } : {};
  const spent = failure === 'tenant_budget' ? readTenantWindow(read(value, 'tenantWindow', 'tenantWindow')) : undefined;
  if (isToolError(error))
    return {
      status: 'error',
      error: boundChain(truncateChain(error, MAX_CAUSE_DEPTH)),
      ...retry,
      ...kind,
      ...(spent && { tenantWindow: spent }),
    };
  const cause = fromError(error);
  throw new Malformed(`\`error\` is not a ToolError (${truncateText(cause.message, 300)})`);
}

/** A tenant's spent window as the worker reported it; anything else is left out (the run then ends without asking). */
function readTenantWindow(value: unknown): TenantWindowSpent | undefined {
  if (!isRecord(value)) return undefined;
  const { tenant, window, id, limit, used, max } = value as Record<string, unknown>;
  if (typeof tenant !== 'string' || tenant.length > 200 || typeof id !== 'string' || id.length > 20) return undefined;
  if ((window !== 'day' && window !== 'month') || (limit !== 'tokens' && limit !== 'cost')) return undefined;
  if (typeof used !== 'number' || !Number.isFinite(used) || typeof max !== 'number' || !Number.isFinite(max))
    return undefined;
  return { tenant, window, id, limit, used, max };
}

function readResponse(value: unknown, bounds: ModelOutcomeLimits): ModelResponse {
  if (!isRecord(value)) throw new Malformed(`\`response\` is ${kindOf(value)}, not an object or null`);
  const text = read(value, 'text', 'response.text');
  if (text !== undefined && text !== null && typeof text !== 'string')
    throw new Malformed(`\`response.text\` is ${kindOf(text)}, not a string`);
  const rawCalls = read(value, 'toolCalls', 'response.toolCalls');
  let toolCalls: RawToolCall[] = [];
  if (rawCalls !== undefined && rawCalls !== null) {
    if (!Array.isArray(rawCalls)) throw new Malformed(`\`response.toolCalls\` is ${kindOf(rawCalls)}, not an array`);
    const count = rawCalls.length;
    if (count > bounds.maxToolCalls) {
      throw new Malformed(
        `the reply has ${count} tool calls, over the limit of ${bounds.maxToolCalls} per reply; ask for fewer calls per turn`,
      );
    }
    toolCalls = Array.from({ length: count }, (_, i) =>
      readCall(read(rawCalls as unknown as Record<string, unknown>, String(i), `response.toolCalls[${i}]`), i, bounds),
    );
  }
  const finish = read(value, 'finishReason', 'response.finishReason');
  const finishReason = (
    typeof finish === 'string' && FINISH_REASONS.has(finish)
      ? finish
      : finish === undefined || finish === null
        ? toolCalls.length > 0
          ? 'tool_calls'
          : 'stop'
        : 'other'
  ) as ModelResponse['finishReason'];
  const interrupted = read(value, 'interrupted', 'response.interrupted') === true;
  const usage = readUsage(read(value, 'usage', 'response.usage'));
  return {
    text: typeof text === 'string' ? text : '',
    toolCalls,
    finishReason,
    ...(interrupted ? { interrupted } : {}),
    ...(usage ? { usage } : {}),
  };
}

function readCall(value: unknown, index: number, bounds: ModelOutcomeLimits): RawToolCall {
  const where = `response.toolCalls[${index}]`;
  if (!isRecord(value)) throw new Malformed(`\`${where}\` is ${kindOf(value)}, not an object`);
  const name = read(value, 'name', `${where}.name`);
  if (typeof name !== 'string') throw new Malformed(`\`${where}.name\` is ${kindOf(name)}, not a string`);
  if (name.length > bounds.maxNameChars)
    throw new Malformed(
      `\`${where}.name\` is ${name.length} characters long, over the limit of ${bounds.maxNameChars}`,
    );
  const id = read(value, 'id', `${where}.id`);
  if (id !== undefined && id !== null && typeof id !== 'string')
    throw new Malformed(`\`${where}.id\` is ${kindOf(id)}, not a string`);
  if (typeof id === 'string' && id.length > bounds.maxNameChars)
    throw new Malformed(`\`${where}.id\` is ${id.length} characters long, over the limit of ${bounds.maxNameChars}`);
  const args = read(value, 'arguments', `${where}.arguments`);
  if (typeof args !== 'string') {
    throw new Malformed(
      `\`${where}.arguments\` is ${kindOf(args)}, not JSON text (a ModelClient passes the provider's raw argument text, e.g. JSON.stringify(input))`,
    );
  }
  const ids = typeof id === 'string' ? { id } : {};
  // Cheap test first: UTF-8 needs at most three bytes per UTF-16 unit.
  const measured = args.length * 3 <= bounds.maxArgumentBytes ? args.length : utf8Bytes(args);
  // A call cut before (this check running again) keeps its mark; a forged mark only gets it refused.
  const marked = read(value, 'oversizeBytes', `${where}.oversizeBytes`);
  const bytes = typeof marked === 'number' && Number.isFinite(marked) && marked > measured ? marked : measured;
  if (bytes > bounds.maxArgumentBytes) {
    return { ...ids, name, arguments: excerpt(args), oversizeBytes: bytes };
  }
  return { ...ids, name, arguments: args };
}

function readUsage(value: unknown): ModelResponse['usage'] | undefined {
  if (!isRecord(value)) return undefined;
  const count = (key: string): number | undefined => {
    const n = read(value, key, `response.usage.${key}`);
    return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
  };
  const inputTokens = count('inputTokens');
  const outputTokens = count('outputTokens');
  const costUsd = count('costUsd');
  if (inputTokens === undefined && outputTokens === undefined && costUsd === undefined) return undefined;
  return {
    ...(inputTokens === undefined ? {} : { inputTokens }),
    ...(outputTokens === undefined ? {} : { outputTokens }),
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

/** The first characters of an oversize argument text, without splitting a surrogate pair. */
function excerpt(text: string): string {
  const end = ARGUMENT_EXCERPT_CHARS - (isHighSurrogate(text.charCodeAt(ARGUMENT_EXCERPT_CHARS - 1)) ? 1 : 0);
  return text.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A property read; a throwing getter or proxy trap becomes a Malformed naming the field. */
function read(value: Record<string, unknown>, key: string, where: string): unknown {
  try {
    return value[key];
  } catch (err) {
    throw new Malformed(`reading \`${where}\` threw (${truncateText(fromError(err).message, 200)})`);
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(truncateText(value, 40)) : kindOf(value);
}
