import { describe, expect, it } from 'vitest';
import { toModelView } from './model-view.js';
import { toolError } from './tool-error.js';
import { NO_TELEMETRY, type ToolResult } from './tool-result.js';

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
      retryHint: { reason: 'partial_data', tool: 'search_orders', message: 'Call again with page=2.', nextInput: { page: 2 }, priorInput: { page: 1 } },
      partialResult: [{ id: 'O-1' }],
    });
    expect(view).toEqual({
      error: { kind: 'partial_data', code: 'partial_data', message: 'Page 1 of several.', causes: ['upstream capped the page'] },
      hint: { reason: 'partial_data', tool: 'search_orders', message: 'Call again with page=2.', priorInput: { page: 1 }, nextInput: { page: 2 } },
      partial: [{ id: 'O-1' }],
    });
  });

  it('shows a repeated cause message once', () => {
    const error = toolError('internal_error', 'Activity task failed', toolError('internal_error', 'rows is undefined', toolError('internal_error', 'rows is undefined')));
    expect(toModelView({ ...base, status: 'error', error })).toEqual({
      error: { kind: 'internal', code: 'internal_error', message: 'Activity task failed', causes: ['rows is undefined'] },
    });
  });

  it('shows a validator’s refusal with its name and feedback', () => {
    expect(toModelView({ ...base, status: 'validator_failed', validator: 'isbn_13', feedback: 'An ISBN must be 13 digits.' })).toEqual({
      error: { kind: 'validation', code: 'validator_failed', validator: 'isbn_13', message: 'An ISBN must be 13 digits.' },
    });
  });

  it('says a message once, leaves out a huge prior input, and bounds every string', () => {
    const long = 'z'.repeat(10_000);
    const result: ToolResult = {
      ...base,
      status: 'error',
      error: toolError('invalid_arguments', long),
      retryHint: { reason: 'invalid_arguments', tool: 'search_orders', message: long, priorInput: { blob: long }, exampleInput: { note: long } },
      partialResult: { text: long },
    };
    const view = toModelView(result) as { error: { message: string }; hint: Record<string, unknown>; partial: { text: string } };
    expect(view.hint).not.toHaveProperty('message');
    expect(view.hint).not.toHaveProperty('priorInput');
    expect(view.error.message).toMatch(/^z{2000}… \[8000 more chars cut\]$/);
    expect((view.hint.exampleInput as { note: string }).note.length).toBeLessThan(2_100);
    expect(view.partial.text.length).toBeLessThan(2_100);
    expect(JSON.stringify(view).length).toBeLessThan(7_000);
  });

  it('caps the number of field issues shown', () => {
    const issues = Array.from({ length: 50 }, (_, i) => ({ path: `f${i}`, message: `f${i} is wrong` }));
    const view = toModelView({ ...base, status: 'error', error: toolError('invalid_arguments', 'bad'), retryHint: { reason: 'invalid_arguments', tool: 't', issues } }) as {
      hint: { issues: unknown[] };
    };
    expect(view.hint.issues).toHaveLength(20);
  });
});
