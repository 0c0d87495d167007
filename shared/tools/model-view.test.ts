import { describe, expect, it } from 'vitest';
import { MAX_PRIOR_INPUT_BYTES, toModelView } from './model-view.js';
import { toolError } from '../failures/tool-error.js';
import { NO_TELEMETRY, errorResult, type ToolResult } from './tool-result.js';
import type { JsonObject, JsonValue } from '../json/json.js';
import { slowIt } from '../../test/support/slow-it.js';

const base = { name: 'search_orders', toolCallId: '1.1', telemetry: NO_TELEMETRY };

describe('toModelView', () => {
  it('shows a success as the result itself', () => {
    const result = { orders: [{ id: 'O-1' }] };
    expect(toModelView({ ...base, status: 'ok', result })).toBe(result);
  });

  it('shows a failure as one object: error with causes, the set hint fields, the partial', () => {
    const view = toModelView({
      ...base,
      status: 'error',
      error: toolError('partial_data', 'Page 1 of several.', toolError('internal_error', 'upstream capped the page')),
      retryHint: {
        reason: 'partial_data',
        tool: 'search_orders',
        message: 'Call again with page=2.',
        nextInput: { page: 2 },
        priorInput: { page: 1 },
      },
      partialResult: [{ id: 'O-1' }],
    });
    expect(view).toEqual({
      error: {
        kind: 'partial_data',
        code: 'partial_data',
        message: 'Page 1 of several.',
        causes: ['upstream capped the page'],
      },
      hint: {
        reason: 'partial_data',
        tool: 'search_orders',
        message: 'Call again with page=2.',
        priorInput: { page: 1 },
        nextInput: { page: 2 },
      },
      partial: [{ id: 'O-1' }],
    });
  });

  it('shows a repeated cause message once', () => {
    const error = toolError(
      'internal_error',
      'Activity task failed',
      toolError('internal_error', 'rows is undefined', toolError('internal_error', 'rows is undefined')),
    );
    expect(toModelView({ ...base, status: 'error', error })).toEqual({
      error: {
        kind: 'internal',
        code: 'internal_error',
        message: 'Activity task failed',
        causes: ['rows is undefined'],
      },
    });
  });

  it('shows a validator’s refusal with its name and feedback', () => {
    expect(
      toModelView({
        ...base,
        status: 'validator_failed',
        validator: 'isbn_13',
        feedback: 'An ISBN must be 13 digits.',
      }),
    ).toEqual({
      error: {
        kind: 'validation',
        code: 'validator_failed',
        validator: 'isbn_13',
        message: 'An ISBN must be 13 digits.',
      },
    });
  });

  it('says a message once, leaves out a huge prior input, and bounds every string', () => {
    const long = 'z'.repeat(10_000);
    const result: ToolResult = {
      ...base,
      status: 'error',
      error: toolError('invalid_arguments', long),
      retryHint: {
        reason: 'invalid_arguments',
        tool: 'search_orders',
        message: long,
        priorInput: { blob: long },
        exampleInput: { note: long },
      },
      partialResult: { text: long },
    };
    const view = toModelView(result) as {
      error: { message: string };
      hint: Record<string, unknown>;
      partial: { text: string };
    };
    expect(view.hint).not.toHaveProperty('message');
    expect(view.hint).not.toHaveProperty('priorInput');
    expect(view.error.message).toMatch(/^z{2000}… \[8000 more chars cut\]$/);
    expect((view.hint.exampleInput as { note: string }).note.length).toBeLessThan(2_100);
    expect(view.partial.text.length).toBeLessThan(2_100);
    expect(JSON.stringify(view).length).toBeLessThan(7_000);
  });

  it('caps the number of field issues shown', () => {
    const issues = Array.from({ length: 50 }, (_, i) => ({ path: `f${i}`, message: `f${i} is wrong` }));
    const view = toModelView({
      ...base,
      status: 'error',
      error: toolError('invalid_arguments', 'bad'),
      retryHint: { reason: 'invalid_arguments', tool: 't', issues },
    }) as {
      hint: { issues: unknown[] };
    };
    expect(view.hint.issues).toHaveLength(20);
  });
});

describe('toModelView on deep and large values', () => {
  slowIt('bounds strings in a partial result nested 100,000 levels deep, keeping __proto__ as data', () => {
    let partial: JsonValue = { __proto__x: 'y'.repeat(5_000) };
    for (let i = 0; i < 100_000; i++) partial = [partial];
    const proto = JSON.parse(`{"__proto__": {"s": "${'z'.repeat(3_000)}"}}`) as JsonValue;
    const result = errorResult(
      { name: 't', toolCallId: '1.1' },
      toolError('partial_data', 'half'),
      {},
      { partialResult: [partial, proto] },
    );
    const view = toModelView(result) as { partial: [JsonValue, { __proto__: { s: string } }] };
    let inner = view.partial[0];
    for (let i = 0; i < 100_000; i++) inner = (inner as JsonValue[])[0]!;
    expect((inner as { __proto__x: string }).__proto__x).toMatch(/^y{2000}… \[3000 more chars cut\]$/);
    expect(Object.keys(view.partial[1])).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(view.partial[1], '__proto__')!.value.s).toMatch(/^z{2000}… /);
  });

  it('leaves out a priorInput over MAX_PRIOR_INPUT_BYTES (UTF-8), without writing it', () => {
    const call = { name: 't', toolCallId: '1.1' };
    const small = toModelView(
      errorResult(call, toolError('invalid_arguments', 'bad'), { priorInput: { q: 'ü'.repeat(900) } }),
    );
    const large = toModelView(
      errorResult(call, toolError('invalid_arguments', 'bad'), { priorInput: { q: 'ü'.repeat(1_100) } }),
    );
    expect((small as { hint: JsonObject }).hint.priorInput).toBeDefined();
    expect((large as { hint: JsonObject }).hint.priorInput).toBeUndefined();
    expect(MAX_PRIOR_INPUT_BYTES).toBe(2_000);
  });

  it('shows a priorInput of exactly MAX_PRIOR_INPUT_BYTES', () => {
    const priorInput = { q: 'x'.repeat(MAX_PRIOR_INPUT_BYTES - '{"q":""}'.length) };
    const view = toModelView(
      errorResult({ name: 't', toolCallId: '1.1' }, toolError('invalid_arguments', 'bad'), { priorInput }),
    );
    expect((view as { hint: JsonObject }).hint.priorInput).toStrictEqual(priorInput);
  });

  it('has no keys for what is not set, caps only the issues, and copies a partial with nulls and arrays', () => {
    const call = { name: 't', toolCallId: '1.1' };
    const tools = Array.from({ length: 30 }, (_, i) => `tool_${i}`);
    const view = toModelView(errorResult(call, toolError('tool_unavailable', 'down'), { availableTools: tools }));
    expect(view).toStrictEqual({
      error: { kind: 'unavailable', code: 'tool_unavailable', message: 'down', causes: [] },
      hint: { reason: 'tool_unavailable', tool: 't', availableTools: tools },
    });
    const partial = { rows: [null, [1, 'a'], { n: null }], total: null };
    const withPartial = toModelView(
      errorResult(call, toolError('partial_data', 'some'), {}, { partialResult: partial }),
    ) as JsonObject;
    expect(withPartial.partial).toStrictEqual(partial);
  });
});
