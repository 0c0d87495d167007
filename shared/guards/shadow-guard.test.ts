import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import { guardOutput } from './output-guard.js';
import { ShadowRecorder, guardMode, shadowCounts, type GuardModes } from './shadow-guard.js';
import { MAX_SHADOW_VIOLATIONS } from '../size-limits.js';
import { slowIt } from '../../test/support/slow-it.js';

const STATUSES = ['placed', 'shipped', 'delivered', 'cancelled'] as const;
const Page = z.object({
  orders: z.array(z.object({ id: z.string(), status: z.enum(STATUSES) })),
  page: z.number().int(),
  has_more: z.boolean(),
});
const searchOrders = (guardMode?: GuardModes) =>
  defineTool({
    name: 'search_orders',
    description: 'Search orders.',
    input: z.object({ customer_id: z.string() }),
    output: Page,
    guardMode,
    check: (result) =>
      result.has_more && result.orders.length === 0
        ? { code: 'semantic_error', message: 'has_more=true but no orders.' }
        : undefined,
    execute: () => '',
  });
const args = { customer_id: 'C-1' };
const shipping = {
  orders: [
    { id: 'O-1', status: 'shipping' },
    { id: 'O-2', status: 'shipping' },
    { id: 'O-3', status: 'placed' },
    { id: 4, status: 'shipped' },
  ],
  page: 1,
  has_more: false,
};

describe('shadow mode', () => {
  it('enforce (the default) refuses as before; shadow passes the output on and records each rule and field with counts', () => {
    expect(guardOutput(searchOrders(), shipping, args)).toMatchObject({
      ok: false,
      error: { code: 'output_schema_violation' },
    });
    const outcome = guardOutput(searchOrders('shadow'), shipping, args);
    expect(outcome).toMatchObject({ ok: true, value: shipping });
    expect(outcome.shadow).toEqual([
      {
        guard: 'output',
        code: 'output_schema_violation',
        rule: 'invalid_value',
        path: 'orders.*.status',
        count: 2,
        message: '`orders.0.status` must be one of placed, shipped, delivered, cancelled, not "shipping"',
      },
      {
        guard: 'output',
        code: 'output_schema_violation',
        rule: 'invalid_type',
        path: 'orders.*.id',
        count: 1,
        message: '`orders.3.id` must be a string, not a number',
      },
    ]);
  });

  it('a shadow check records its verdict and lets the output through; an enforced schema still applies', () => {
    const empty = { orders: [], page: 1, has_more: true };
    const outcome = guardOutput(searchOrders({ check: 'shadow' }), empty, args);
    expect(outcome).toEqual({
      ok: true,
      value: empty,
      shadow: [
        {
          guard: 'check',
          code: 'semantic_error',
          rule: 'semantic_error',
          path: '',
          count: 1,
          message: 'has_more=true but no orders.',
        },
      ],
    });
    expect(guardOutput(searchOrders({ check: 'shadow' }), shipping, args)).toMatchObject({
      ok: false,
      error: { code: 'output_schema_violation' },
    });
  });

  it('records text that is not JSON and passes the text on; never passes a value JSON cannot hold', () => {
    const outcome = guardOutput(searchOrders('shadow'), '{"orders": [', args);
    expect(outcome).toMatchObject({
      ok: true,
      value: '{"orders": [',
      shadow: [{ code: 'output_not_json', rule: 'json_syntax', count: 1 }],
    });
    expect(guardOutput(searchOrders('shadow'), { orders: [], page: 1n, has_more: false }, args)).toMatchObject({
      ok: false,
      error: { code: 'output_not_json' },
    });
  });

  it('records a check that throws instead of failing the call', () => {
    const tool = defineTool({
      name: 'flaky_check',
      description: 'x',
      input: z.object({}),
      guardMode: 'shadow',
      check: () => {
        throw new RangeError('table missing');
      },
      execute: () => ({ a: 1 }),
    });
    expect(guardOutput(tool, { a: 1 }, {})).toMatchObject({
      ok: true,
      value: { a: 1 },
      shadow: [{ guard: 'check', code: 'internal_error', rule: 'check_threw' }],
    });
  });

  it(`keeps at most ${MAX_SHADOW_VIOLATIONS} distinct violations per result and counts the rest`, () => {
    const recorder = new ShadowRecorder();
    for (let i = 0; i < 100; i++)
      recorder.record('output', 'output_schema_violation', 'invalid_type', [`field${i}`], 'x');
    const violations = recorder.violations();
    expect(violations).toHaveLength(MAX_SHADOW_VIOLATIONS + 1);
    expect(violations.at(-1)).toMatchObject({ rule: 'more', count: 100 - MAX_SHADOW_VIOLATIONS });
  });

  slowIt('folds 100,000 bad items into one violation with a count', () => {
    const orders = Array.from({ length: 100_000 }, (_, i) => ({ id: `O-${i}`, status: 'shipping' }));
    const outcome = guardOutput(searchOrders('shadow'), { orders, page: 1, has_more: false }, args);
    expect(outcome.shadow).toEqual([expect.objectContaining({ path: 'orders.*.status', count: 100_000 })]);
  });

  it('guardMode reads one mode or one per guard', () => {
    expect(guardMode(undefined, 'output')).toBe('enforce');
    expect(guardMode('shadow', 'check')).toBe('shadow');
    expect(guardMode({ output: 'shadow' }, 'check')).toBe('enforce');
  });

  it('shadowCounts sums violations per tool, guard, rule and field over results, most frequent first', () => {
    const v = (path: string, count: number) => ({
      guard: 'output' as const,
      code: 'output_schema_violation' as const,
      rule: 'invalid_value',
      path,
      count,
      message: `m ${path}`,
    });
    const rows = shadowCounts([
      { name: 'search_orders', shadow: [v('orders.*.status', 2)] },
      { name: 'search_orders', shadow: [v('orders.*.status', 5), v('page', 1)] },
      { name: 'search_orders' },
      { name: 'track', shadow: [v('eta', 1)] },
    ]);
    expect(rows).toEqual([
      {
        tool: 'search_orders',
        guard: 'output',
        code: 'output_schema_violation',
        rule: 'invalid_value',
        path: 'orders.*.status',
        count: 7,
        calls: 2,
        example: 'm orders.*.status',
      },
      {
        tool: 'search_orders',
        guard: 'output',
        code: 'output_schema_violation',
        rule: 'invalid_value',
        path: 'page',
        count: 1,
        calls: 1,
        example: 'm page',
      },
      {
        tool: 'track',
        guard: 'output',
        code: 'output_schema_violation',
        rule: 'invalid_value',
        path: 'eta',
        count: 1,
        calls: 1,
        example: 'm eta',
      },
    ]);
    // Seen in another order, the report is the same: by count, then by tool.
    const later = shadowCounts([
      { name: 'track', shadow: [v('eta', 1)] },
      { name: 'search_orders', shadow: [v('page', 1), v('orders.*.status', 7)] },
    ]);
    expect(later.map((row) => [row.tool, row.path, row.count])).toEqual([
      ['search_orders', 'orders.*.status', 7],
      ['search_orders', 'page', 1],
      ['track', 'eta', 1],
    ]);
  });

  it('folds list indexes, numeric keys and symbols in a violation path', () => {
    const recorder = new ShadowRecorder();
    recorder.record('output', 'output_schema_violation', 'invalid_type', ['orders', 3, 'lines', '12', 'sku'], 'first');
    recorder.record('output', 'output_schema_violation', 'invalid_type', ['orders', 4, 'lines', '0', 'sku'], 'second');
    recorder.record('output', 'output_schema_violation', 'invalid_type', ['meta', Symbol('tag'), '1a'], 'third');
    recorder.record('output', 'output_schema_violation', 'invalid_type', [Symbol()], 'fourth');
    expect(recorder.violations().map((v) => [v.path, v.count, v.message])).toEqual([
      ['orders.*.lines.*.sku', 2, 'first'],
      ['meta.tag.1a', 1, 'third'],
      ['symbol', 1, 'fourth'],
    ]);
  });
});
