/**
 * Results bounded before they leave the activity: an oversize success becomes `partial_data`
 * keeping what fits and saying how to get the rest; a failure's texts, hint and partial result are
 * cut; whatever comes out fits the limit.
 */
import { describe, expect, it } from 'vitest';
import { toolError, type ToolError } from '../failures/tool-error.js';
import { jsonSize } from '../json/json-measure.js';
import {
  DEFAULT_MAX_RESULT_BYTES,
  HARD_MAX_RESULT_BYTES,
  MAX_FAILURE_MESSAGE_CHARS,
  MAX_FIELD_ISSUES,
  MAX_HINT_BYTES,
} from '../size-limits.js';
import { boundChain, boundToolResult, isOversize, resultLimit } from './tool-result-size.js';
import { errorResult, type ToolFailureResult, type ToolResult, type ToolSuccess } from './tool-result.js';

const call = { name: 'list_orders', toolCallId: '2.1' };
const telemetry = { durationMs: 12, attempt: 2 };
const success = (result: ToolSuccess['result']): ToolSuccess => ({ status: 'ok', ...call, result, telemetry });
const orders = (n: number) => ({ orders: Array.from({ length: n }, (_, i) => ({ id: i, note: 'x'.repeat(90) })) });
const long = (n: number) => 'm'.repeat(n);
/** A text bounded to `max` characters, its cut marked. */
const cutTo = (text: string | undefined, max: number) => {
  expect(text).toMatch(/… \[\d+ more chars cut\]$/);
  expect(text!.length).toBeLessThanOrEqual(max);
  expect(text!.length).toBeGreaterThan(max - 5);
};

describe('resultLimit', () => {
  it("is the tool's own limit, else the worker's, else the default, within [4 KiB, the hard maximum]", () => {
    expect(resultLimit(10_000, 20_000)).toBe(10_000);
    expect(resultLimit(undefined, 20_000)).toBe(20_000);
    expect(resultLimit(undefined, undefined)).toBe(DEFAULT_MAX_RESULT_BYTES);
    expect(resultLimit(10, undefined)).toBe(4_096);
    expect(resultLimit(HARD_MAX_RESULT_BYTES * 4, undefined)).toBe(HARD_MAX_RESULT_BYTES);
    expect(resultLimit(5_000.9, undefined)).toBe(5_000);
  });
});

describe('isOversize', () => {
  it('is true only over the limit', () => {
    const result = success({ a: 1 });
    const size = jsonSize(result);
    expect(isOversize(result, size)).toBe(false);
    expect(isOversize(result, size - 1)).toBe(true);
  });
});

describe('boundToolResult: successes', () => {
  it('returns a success that fits unchanged', () => {
    const result = success(orders(3));
    expect(boundToolResult(result, 100_000)).toBe(result);
  });

  it('turns an oversize success into partial_data keeping the start, within the limit, saying what was cut', () => {
    const result = success(orders(2_000));
    const bounded = boundToolResult(result, 50_000) as ToolFailureResult;
    expect(jsonSize(bounded)).toBeLessThanOrEqual(50_000);
    expect(bounded).toMatchObject({
      status: 'error',
      ...call,
      telemetry,
      error: { code: 'partial_data' },
      retryHint: { reason: 'partial_data', tool: 'list_orders' },
    });
    expect(bounded.error.message).toMatch(
      /^list_orders returned \d+ bytes of JSON, over its limit of 50000; only the start is kept \(the result keeps 1 of 1 keys; `orders` keeps \d+ of 2000 items\)\.$/,
    );
    expect(bounded.error.message).toContain(`returned ${jsonSize(result.result)} bytes`);
    expect(bounded.retryHint!.message).toBe(
      'Use the part kept, or call list_orders again asking for less (a narrower query, a smaller page).',
    );
    const kept = (bounded.partialResult as { orders: unknown[] }).orders;
    expect(kept.length).toBeGreaterThan(100);
    expect(kept[0]).toEqual(result.result && (result.result as { orders: unknown[] }).orders[0]);
    // The partial uses the room left after the failure's own fields (about 6 KiB).
    expect(jsonSize(bounded.partialResult!)).toBeGreaterThan(50_000 - 8_192);
    expect(bounded).not.toHaveProperty('shadow');
  });

  it('keeps at least 1 KiB of the partial however small the limit', () => {
    const bounded = boundToolResult(success(orders(200)), 4_096) as ToolFailureResult;
    expect(jsonSize(bounded.partialResult!)).toBeGreaterThan(512);
    expect(jsonSize(bounded.partialResult!)).toBeLessThanOrEqual(1_024);
  });

  it('says where the whole result is stored and how to read it', () => {
    const bounded = boundToolResult(success(orders(2_000)), 50_000, {
      ref: 'r-9',
      chars: 123_456,
    }) as ToolFailureResult;
    expect(bounded.error.message).toContain(
      ' The whole result is stored: read its JSON text with read_result({ "ref": "r-9", "offset": 0, "length": 65536 }) (123456 characters in all).',
    );
    expect(bounded.retryHint!.message).toBe(
      'Use the part kept, read the rest with read_result (ref "r-9"), or call list_orders again asking for less.',
    );
  });

  it("keeps the shadow guard's findings of an oversize success", () => {
    const shadow = {
      violations: [{ guard: 'output_schema', message: 'extra key' }],
    } as unknown as ToolSuccess['shadow'];
    const bounded = boundToolResult({ ...success(orders(2_000)), shadow }, 50_000);
    expect(bounded.shadow).toEqual(shadow);
  });
});

describe('boundToolResult: failures', () => {
  it("cuts a validator failure's name and feedback", () => {
    const bounded = boundToolResult(
      { status: 'validator_failed', ...call, validator: long(500), feedback: long(10_000), telemetry },
      1_000_000,
    );
    expect(bounded).toMatchObject({ status: 'validator_failed', ...call, telemetry });
    if (bounded.status !== 'validator_failed') throw new Error('unreachable');
    cutTo(bounded.validator, 200);
    cutTo(bounded.feedback, MAX_FAILURE_MESSAGE_CHARS);
  });

  it('leaves a small failure as it was', () => {
    const failure = errorResult(
      call,
      toolError('timeout', 'slow'),
      { message: 'try later', retryAfterMs: 5 },
      { partialResult: { a: 1 }, telemetry },
    );
    expect(boundToolResult(failure, 100_000)).toEqual(failure);
    const bare: ToolFailureResult = { status: 'error', ...call, error: toolError('timeout', 'slow'), telemetry };
    expect(boundToolResult(bare, 100_000)).toEqual(bare);
  });

  it("cuts the messages of the whole error chain, names included, and the hint's texts and lists", () => {
    const error = {
      ...toolError('internal_error', long(5_000), toolError('timeout', long(5_000))),
      name: long(500),
    } as ToolError;
    const issues = Array.from({ length: 80 }, (_, i) => ({ path: `f${i}`, message: long(600) }));
    const failure = errorResult(call, error, {
      message: long(5_000),
      clarifyingQuestion: long(5_000),
      issues,
      missingFields: Array.from({ length: 80 }, (_, i) => `f${i}`),
      availableTools: Array.from({ length: 300 }, (_, i) => `t${i}`),
    });
    const bounded = boundToolResult(failure, HARD_MAX_RESULT_BYTES) as ToolFailureResult;
    cutTo(bounded.error.message, MAX_FAILURE_MESSAGE_CHARS);
    cutTo(bounded.error.name, 200);
    cutTo(bounded.error.cause!.message, MAX_FAILURE_MESSAGE_CHARS);
    expect(bounded.error.cause!.code).toBe('timeout');
    const hint = bounded.retryHint!;
    cutTo(hint.message, MAX_FAILURE_MESSAGE_CHARS);
    cutTo(hint.clarifyingQuestion, MAX_FAILURE_MESSAGE_CHARS);
    expect(jsonSize(hint)).toBeLessThanOrEqual(MAX_HINT_BYTES);
    // Over 16 KiB even when capped: the largest optional fields went, the essentials stayed.
    expect(hint).toMatchObject({ reason: 'internal_error', tool: 'list_orders' });
    expect(hint.issues).toBeUndefined();
  });

  it("caps a hint's lists and keeps them when that is enough", () => {
    const failure = errorResult(call, toolError('invalid_arguments', 'bad'), {
      issues: Array.from({ length: 80 }, (_, i) => ({ path: `f${i}`, message: long(600) })).map((x) => ({
        ...x,
        message: 'short',
      })),
      missingFields: Array.from({ length: 80 }, (_, i) => `f${i}`),
      availableTools: Array.from({ length: 300 }, (_, i) => `t${i}`),
    });
    const hint = (boundToolResult(failure, HARD_MAX_RESULT_BYTES) as ToolFailureResult).retryHint!;
    expect(hint.issues).toHaveLength(MAX_FIELD_ISSUES);
    expect(hint.missingFields).toHaveLength(MAX_FIELD_ISSUES);
    expect(hint.availableTools).toHaveLength(200);
    expect(hint.issues![0]!.message).toBe('short');
  });

  it("cuts an issue's message to 500 characters", () => {
    const failure = errorResult(call, toolError('invalid_arguments', 'bad'), {
      issues: [{ path: 'a', message: long(900) }],
    });
    expect(
      (boundToolResult(failure, HARD_MAX_RESULT_BYTES) as ToolFailureResult).retryHint!.issues![0]!.message,
    ).toHaveLength(500);
  });

  it('drops the largest droppable hint fields first, keeping the smaller ones', () => {
    const failure = errorResult(call, toolError('invalid_arguments', 'bad'), {
      priorInput: { blob: long(20_000) },
      exampleInput: { a: 1 },
      missingFields: ['a'],
    });
    const hint = (boundToolResult(failure, HARD_MAX_RESULT_BYTES) as ToolFailureResult).retryHint!;
    expect(hint.priorInput).toBeUndefined();
    expect(hint.exampleInput).toEqual({ a: 1 });
    expect(hint.missingFields).toEqual(['a']);
  });

  it('cuts an oversize partial result of a failure to what fits', () => {
    const failure = errorResult(
      call,
      toolError('partial_data', 'page 1 only'),
      {},
      { partialResult: orders(2_000), telemetry },
    );
    const bounded = boundToolResult(failure, 20_000) as ToolFailureResult;
    expect(jsonSize(bounded)).toBeLessThanOrEqual(20_000);
    expect((bounded.partialResult as { orders: unknown[] }).orders.length).toBeGreaterThan(50);
    expect(bounded.error.message).toBe('page 1 only');
  });

  it("drops the partial result when almost nothing of it would fit, and then the hint's extras", () => {
    const hintMessage = 'm'.repeat(1_500);
    const failure = errorResult(
      call,
      toolError('partial_data', 'x'.repeat(1_500)),
      { message: hintMessage, missingFields: ['a'.repeat(1_000)], exampleInput: { e: 'e'.repeat(1_000) } },
      { partialResult: orders(50) },
    );
    const size = jsonSize({ ...failure, partialResult: undefined });
    const bounded = boundToolResult(failure, size + 40) as ToolFailureResult;
    expect(bounded).not.toHaveProperty('partialResult');
    expect(bounded.retryHint).toEqual(failure.retryHint);
    const tiny = boundToolResult(failure, 4_000) as ToolFailureResult;
    expect(tiny.retryHint).toEqual({ reason: 'partial_data', tool: 'list_orders', message: hintMessage });
    const noMessage = errorResult(
      call,
      toolError('partial_data', 'x'.repeat(3_000)),
      { missingFields: ['a'.repeat(3_000)] },
      { partialResult: orders(50) },
    );
    expect((boundToolResult(noMessage, 4_000) as ToolFailureResult).retryHint).toStrictEqual({
      reason: 'partial_data',
      tool: 'list_orders',
    });
  });

  it('a failure without a hint comes back without one', () => {
    const bare: ToolResult = {
      status: 'error',
      ...call,
      error: toolError('internal_error', long(9_000)),
      partialResult: orders(100),
      telemetry,
    };
    const bounded = boundToolResult(bare, 4_096) as ToolFailureResult;
    expect(bounded).not.toHaveProperty('retryHint');
    cutTo(bounded.error.message, MAX_FAILURE_MESSAGE_CHARS);
  });
});

describe('boundToolResult: the edges of the limit', () => {
  const small = (partialResult?: ToolSuccess['result']) =>
    errorResult(
      call,
      toolError('partial_data', 'first page'),
      { message: 'ask for page 2' },
      { ...(partialResult !== undefined && { partialResult }), telemetry },
    );

  it('a failure that fits keeps its partial result, however little room is left around it', () => {
    const failure = small({ p: 1 });
    expect(boundToolResult(failure, jsonSize(failure))).toEqual(failure);
  });

  it('keeps a partial result only when more than 32 bytes are left for it', () => {
    const failure = small(orders(20));
    const rest = jsonSize(small());
    expect(boundToolResult(failure, rest + 64 + 32)).not.toHaveProperty('partialResult');
    expect(boundToolResult(failure, rest + 64 + 40)).toHaveProperty('partialResult');
  });

  it('an oversize failure without a partial result gets none', () => {
    const failure: ToolFailureResult = {
      status: 'error',
      ...call,
      error: toolError('internal_error', long(9_000)),
      telemetry,
    };
    expect(Object.keys(boundToolResult(failure, 4_096))).not.toContain('partialResult');
  });

  it('a failure without a hint that stays over the limit comes back cut as far as it goes', () => {
    let error = toolError('internal_error', long(3_000));
    for (let i = 0; i < 4; i++) error = toolError('internal_error', long(3_000), error);
    const bounded = boundToolResult({ status: 'error', ...call, error, telemetry }, 4_096) as ToolFailureResult;
    expect(Object.keys(bounded)).not.toContain('retryHint');
    expect(bounded.error.cause!.cause!.cause!.cause!.message.length).toBeLessThanOrEqual(MAX_FAILURE_MESSAGE_CHARS);
  });

  it('a hint of exactly 16 KiB is kept whole', () => {
    const base = errorResult(call, toolError('invalid_arguments', 'bad'), { priorInput: '' }).retryHint!;
    const priorInput = 'x'.repeat(MAX_HINT_BYTES - jsonSize(base));
    const failure = errorResult(call, toolError('invalid_arguments', 'bad'), { priorInput });
    expect(jsonSize(failure.retryHint!)).toBe(MAX_HINT_BYTES);
    expect(boundToolResult(failure, HARD_MAX_RESULT_BYTES)).toEqual(failure);
  });

  it('drops the largest optional field wherever it is listed, and on a tie the input the model sent before the example', () => {
    const tools = Array.from({ length: 200 }, (_, i) => `tool_${i}_${'n'.repeat(90)}`);
    const big = errorResult(call, toolError('unknown_tool', 'no such tool'), {
      priorInput: { a: 1 },
      availableTools: tools,
    });
    const hint = (boundToolResult(big, HARD_MAX_RESULT_BYTES) as ToolFailureResult).retryHint!;
    expect(hint.availableTools).toBeUndefined();
    expect(hint.priorInput).toEqual({ a: 1 });
    const tie = errorResult(call, toolError('invalid_arguments', 'bad'), {
      priorInput: { a: long(9_000) },
      exampleInput: { a: long(9_000) },
    });
    const kept = (boundToolResult(tie, HARD_MAX_RESULT_BYTES) as ToolFailureResult).retryHint!;
    expect(kept.priorInput).toBeUndefined();
    expect(kept.exampleInput).toEqual({ a: long(9_000) });
  });

  it("a hint still over 16 KiB once every optional field went is left at that (its tool's name is what it is)", () => {
    const named = { name: `t_${'n'.repeat(20_000)}`, toolCallId: '1' };
    const failure = errorResult(named, toolError('invalid_arguments', 'bad'), {
      priorInput: { a: 1 },
      missingFields: ['a'],
    });
    const hint = (boundToolResult(failure, HARD_MAX_RESULT_BYTES) as ToolFailureResult).retryHint!;
    expect(hint).toStrictEqual({ reason: failure.retryHint!.reason, tool: named.name });
  });
});

describe('boundChain', () => {
  it("keeps every link's code, kind, message and name, and nothing else", () => {
    const inner = { ...toolError('timeout', 'inner'), extra: 'dropped' } as ToolError;
    const outer = { ...toolError('internal_error', 'outer', inner), name: 'Boom' } as ToolError;
    expect(boundChain(outer)).toStrictEqual({
      code: 'internal_error',
      kind: outer.kind,
      message: 'outer',
      name: 'Boom',
      cause: { code: 'timeout', kind: inner.kind, message: 'inner' },
    });
  });
});
