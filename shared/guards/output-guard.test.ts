import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import { guardOutput } from './output-guard.js';
import { deepJson, deepJsonText } from '../../test/support/json-values.js';

// Seed 002's tool, with its semantic check.
const STATUSES = ['placed', 'shipped', 'delivered', 'cancelled'] as const;
const Order = z.object({ id: z.string(), total_cents: z.number().int(), status: z.enum(STATUSES) });
const searchOrders = () =>
  defineTool({
    name: 'search_orders',
    description: 'Search a customer’s orders, one page at a time.',
    input: z.object({ customer_id: z.string(), page: z.number().int().min(1).default(1) }),
    output: z.object({ orders: z.array(Order), page: z.number().int(), has_more: z.boolean() }),
    check: (result) => {
      if (result.has_more && result.page === 1 && result.orders.length === 0) {
        return {
          code: 'semantic_error',
          message:
            'has_more=true but page 1 returned 0 orders; try a broader date range or check the customer_id format.',
        };
      }
      if (result.has_more) {
        return {
          code: 'partial_data',
          message: `Page ${result.page} returned ${result.orders.length} orders, more exist; call again with page=${result.page + 1}.`,
          nextInput: { page: result.page + 1 },
        };
      }
      return undefined;
    },
    execute: () => '',
  });
const args = { customer_id: 'C-9921', page: 1 };
const order = { id: 'O-1', total_cents: 1250, status: 'shipped' };

describe('guardOutput (seed 002)', () => {
  it('passes a valid payload, parsed from text', () => {
    const page = { orders: [order], page: 1, has_more: false };
    expect(guardOutput(searchOrders(), JSON.stringify(page), args)).toEqual({ ok: true, value: page });
    expect(guardOutput(searchOrders(), page, args)).toEqual({ ok: true, value: page });
  });

  it('refuses truncated JSON, saying where it broke', () => {
    const text = '{"orders": [{"id": "O-1", "total"';
    const outcome = guardOutput(searchOrders(), text, args);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatchObject({ code: 'output_not_json', kind: 'schema_mismatch' });
    expect(outcome.error.message).toBe(
      `search_orders returned text that is not valid JSON: the text ends too early (truncated?): expected ':' after the property name with 3 bracket(s) still open at position ${text.length} (line 1, column ${text.length + 1}), near …rders": [{"id": "O-1", "total"⟨here⟩.`,
    );
    expect(outcome.hint).toMatchObject({ reason: 'malformed_response', tool: 'search_orders', priorInput: args });
    expect(outcome.hint.message).toMatch(/same arguments will fail the same way/);
  });

  it('refuses status "shipping" naming the field path and the allowed values', () => {
    const outcome = guardOutput(
      searchOrders(),
      { orders: [order, { ...order, status: 'shipping' }], page: 1, has_more: false },
      args,
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('output_schema_violation');
    expect(outcome.error.message).toBe(
      'search_orders returned data outside its output schema at orders.1.status: `orders.1.status` must be one of placed, shipped, delivered, cancelled, not "shipping".',
    );
    expect(outcome.hint.issues).toEqual([expect.objectContaining({ path: 'orders.1.status', allowed: [...STATUSES] })]);
  });

  it('calls an empty first page that says has_more semantic garbage', () => {
    const outcome = guardOutput(searchOrders(), { orders: [], page: 1, has_more: true }, args);
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'semantic_error', kind: 'semantic' },
      hint: { reason: 'semantic_error', priorInput: args },
    });
    expect(outcome).not.toHaveProperty('partialResult');
  });

  it('keeps a page that says has_more as partial data, with the next page as nextInput', () => {
    const page = { orders: [order], page: 1, has_more: true };
    const outcome = guardOutput(searchOrders(), page, args);
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'partial_data',
        kind: 'partial_data',
        message: 'Page 1 returned 1 orders, more exist; call again with page=2.',
      },
      hint: {
        reason: 'partial_data',
        tool: 'search_orders',
        priorInput: args,
        message: 'Page 1 returned 1 orders, more exist; call again with page=2.',
        nextInput: { page: 2 },
      },
      partialResult: page,
    });
  });
});

describe('guardOutput (edges)', () => {
  const plain = (execute: () => unknown, extra: object = {}) =>
    defineTool({ name: 'plain', description: 'Plain.', input: z.object({}), execute, ...extra });

  it('keeps text as text when the tool declares no output schema', () => {
    expect(
      guardOutput(
        plain(() => ''),
        'not json {',
        {},
      ),
    ).toEqual({ ok: true, value: 'not json {' });
  });

  it('does not parse text when the output schema accepts text', () => {
    const tool = plain(() => '', { output: z.string() });
    expect(guardOutput(tool, '42', {})).toEqual({ ok: true, value: '42' });
  });

  it.each([
    ['BigInt', { total: 10n }, 'BigInt 10n at `total` is not JSON'],
    ['NaN', { ratio: NaN }, 'NaN at `ratio` is not JSON'],
    ['a function', () => 1, 'at the top level is not JSON'],
  ])('refuses %s in the output as output_not_json', (_label, value, fragment) => {
    const outcome = guardOutput(
      plain(() => value),
      value,
      {},
    );
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.code).toBe('output_not_json');
      expect(outcome.error.message).toContain(fragment);
    }
  });

  it('turns an undefined output into null and drops undefined keys', () => {
    expect(
      guardOutput(
        plain(() => undefined),
        undefined,
        {},
      ),
    ).toEqual({ ok: true, value: null });
    expect(
      guardOutput(
        plain(() => ({})),
        { a: 1, b: undefined },
        {},
      ),
    ).toEqual({ ok: true, value: { a: 1 } });
  });

  it('gives the check the parsed output and the call’s arguments', () => {
    const seen: unknown[] = [];
    const tool = plain(() => '', {
      output: z.object({ n: z.number() }),
      check: (out: unknown, a: unknown) => (seen.push(out, a), undefined),
    });
    guardOutput(tool, '{"n": 1}', { q: 2 });
    expect(seen).toEqual([{ n: 1 }, { q: 2 }]);
  });

  it('turns a throwing or malformed check into internal_error', () => {
    const throwing = plain(() => 1, {
      check: () => {
        throw new Error('bug in check');
      },
    });
    expect(guardOutput(throwing, 1, {})).toMatchObject({
      ok: false,
      error: { code: 'internal_error', message: 'The output guard of plain threw: bug in check' },
    });
    const odd = plain(() => 1, { check: () => ({ code: 'looks_fine', message: 'x' }) });
    expect(guardOutput(odd, 1, {})).toMatchObject({
      ok: false,
      error: {
        code: 'internal_error',
        message: 'The semantic check of plain returned an unknown verdict code "looks_fine".',
      },
    });
  });

  it.each([
    ['a string', 'looks wrong', 'returned something other than a verdict object'],
    ['an array', [{ code: 'semantic_error', message: 'x' }], 'returned something other than a verdict object'],
    ['no message', { code: 'semantic_error' }, 'returned a verdict without a message'],
    ['a blank message', { code: 'semantic_error', message: '  ' }, 'returned a verdict without a message'],
    [
      'a nextInput that is a list',
      { code: 'partial_data', message: 'more', nextInput: [2] },
      'returned a nextInput that is not a JSON object',
    ],
    [
      'a nextInput JSON cannot hold',
      { code: 'partial_data', message: 'more', nextInput: { page: 2n } },
      'returned a nextInput that is not a JSON object',
    ],
    [
      'a partial JSON cannot hold',
      { code: 'partial_data', message: 'more', partial: { rows: NaN } },
      'returned a partial that is not JSON: NaN at `rows` is not JSON',
    ],
  ])(
    'refuses a verdict with %s as internal_error saying what is wrong; in shadow mode records it and passes the output',
    (_label, verdict, what) => {
      const tool = (guardMode?: 'shadow') => plain(() => 1, { check: () => verdict, guardMode });
      const outcome = guardOutput(tool(), { n: 1 }, {});
      expect(outcome).toMatchObject({
        ok: false,
        error: { code: 'internal_error', message: expect.stringContaining(`The semantic check of plain ${what}`) },
      });
      expect(guardOutput(tool('shadow'), { n: 1 }, {})).toEqual({
        ok: true,
        value: { n: 1 },
        shadow: [
          {
            guard: 'check',
            code: 'internal_error',
            rule: 'bad_verdict',
            path: '',
            count: 1,
            message: expect.stringContaining(`The semantic check of plain ${what}`),
          },
        ],
      });
    },
  );

  it('tells the model the verdict’s message, trimmed, with its nextInput; partial_data without a partial keeps the output', () => {
    const tool = (verdict: object) => plain(() => 1, { check: () => verdict });
    const empty = guardOutput(
      tool({ code: 'semantic_error', message: '  page 1 is empty  ', nextInput: { page: 2 } }),
      { rows: [] },
      { page: 1 },
    );
    expect(empty).toMatchObject({
      ok: false,
      error: { code: 'semantic_error', message: 'page 1 is empty' },
      hint: { message: 'page 1 is empty', nextInput: { page: 2 }, priorInput: { page: 1 } },
    });
    expect(empty).not.toHaveProperty('partialResult');
    const partial = guardOutput(tool({ code: 'partial_data', message: 'first 2 of 9' }), { rows: [1, 2] }, {});
    expect(partial).toMatchObject({ ok: false, error: { code: 'partial_data' }, partialResult: { rows: [1, 2] } });
    expect((partial as { hint: object }).hint).not.toHaveProperty('nextInput');
  });

  it('a schema that throws fails the call when enforced; in shadow mode the raw output passes on if it is JSON, else output_not_json', () => {
    const throwing = z.custom<unknown>(() => {
      throw new Error('schema bug');
    });
    const tool = (guardMode?: 'shadow') => plain(() => 1, { output: throwing, guardMode });
    expect(guardOutput(tool(), { a: 1 }, {})).toMatchObject({
      ok: false,
      error: { code: 'internal_error', message: 'The output guard of plain threw: schema bug' },
    });
    expect(guardOutput(tool('shadow'), { a: 1 }, {})).toMatchObject({
      ok: true,
      value: { a: 1 },
      shadow: [{ guard: 'output', code: 'internal_error', rule: 'schema_threw' }],
    });
    expect(guardOutput(tool('shadow'), { a: 1n }, {})).toMatchObject({
      ok: false,
      error: {
        code: 'output_not_json',
        message:
          'plain returned a value that is not JSON: BigInt 1n at `a` is not JSON; convert it to a number or a string.',
      },
    });
  });

  it('uses the verdict’s own partial when it gives one', () => {
    const tool = plain(() => 1, {
      check: () => ({ code: 'partial_data', message: 'first 3 of 47', partial: [1, 2, 3] }),
    });
    expect(guardOutput(tool, { rows: [1, 2, 3], total: 47 }, {})).toMatchObject({
      ok: false,
      partialResult: [1, 2, 3],
    });
  });

  it('refuses output nested deeper than 256 levels before a recursive schema sees it', () => {
    // z.array(z.json()): recursive, and it does not accept the text itself, so text is parsed first.
    const doc = defineTool({
      name: 'doc',
      description: 'Doc.',
      input: z.object({}),
      output: z.array(z.json()),
      execute: () => null,
    });
    for (const output of [deepJson(10_000), deepJsonText(10_000)]) {
      const outcome = guardOutput(doc, output, {});
      expect(outcome).toMatchObject({
        ok: false,
        error: {
          code: 'output_not_json',
          message: 'doc returned a value nested over 256 levels deep, which is not accepted as JSON; flatten it.',
        },
      });
    }
  });
});

describe('guardOutput: shadow mode per guard, and what a refusal says', () => {
  const tool = (extra: object = {}) =>
    defineTool({
      name: 'pair',
      description: 'Pair.',
      input: z.object({}),
      output: z.object({ a: z.number(), b: z.number(), tag: z.string().default('none') }),
      execute: () => null,
      ...extra,
    });
  const retryIsFutile = expect.stringMatching(/^Calling this tool again with the same arguments will fail/);

  it('names every path outside the schema, and the whole output when it is the wrong kind', () => {
    expect(guardOutput(tool(), { a: 'x', b: 'y' }, {})).toMatchObject({
      ok: false,
      error: {
        code: 'output_schema_violation',
        message: expect.stringMatching(/^pair returned data outside its output schema at a, b: /),
      },
      hint: { message: retryIsFutile },
    });
    expect(guardOutput(tool(), 5, {})).toMatchObject({
      error: { message: expect.stringMatching(/ at \(the whole output\): /) },
    });
  });

  it('records text that is not JSON in shadow mode, passes it on as text, and runs no check on it', () => {
    let checked = 0;
    const shadowed = tool({ guardMode: { output: 'shadow' }, check: () => void checked++ });
    expect(guardOutput(shadowed, '{"a":', {})).toEqual({
      ok: true,
      value: '{"a":',
      shadow: [
        expect.objectContaining({ guard: 'output', code: 'output_not_json', rule: 'json_syntax', path: '', count: 1 }),
      ],
    });
    const outside = guardOutput(shadowed, { a: 'x', b: 1 }, {});
    expect(outside).toMatchObject({ ok: true, value: { a: 'x', b: 1 } });
    expect(outside.shadow?.map((v) => v.guard)).toStrictEqual(['output']);
    expect(checked).toBe(0);
  });

  it('passes on the parsed output, defaults filled, when a shadowed check throws', () => {
    const throwing = tool({
      guardMode: { check: 'shadow' },
      check: () => {
        throw new Error('check bug');
      },
    });
    expect(guardOutput(throwing, { a: 1, b: 2 }, {})).toMatchObject({
      ok: true,
      value: { a: 1, b: 2, tag: 'none' },
      shadow: [{ guard: 'check', code: 'internal_error', rule: 'check_threw', path: '' }],
    });
  });

  it('tells the model not to retry output nested too deep or not JSON at all', () => {
    const plain = defineTool({ name: 'plain', description: 'Plain.', input: z.object({}), execute: () => null });
    expect(guardOutput(plain, deepJson(300), {})).toMatchObject({ ok: false, hint: { message: retryIsFutile } });
    expect(guardOutput(plain, { n: Number.NaN }, {})).toMatchObject({ ok: false, hint: { message: retryIsFutile } });
  });
});
