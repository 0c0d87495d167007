import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countFieldIssues, isMissingIssue, missingFieldPaths, summariseIssues, toFieldIssues } from './zod-issues.js';

const STATUSES = ['placed', 'shipped', 'delivered', 'cancelled'] as const;

function issuesOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a failure');
  return { issues: result.error.issues, fields: toFieldIssues(result.error.issues, input) };
}

describe('toFieldIssues', () => {
  it('names an enum’s allowed values in message, expected and allowed', () => {
    const { fields } = issuesOf(z.object({ status: z.enum(STATUSES) }), { status: 'shipping' });
    expect(fields).toEqual([
      {
        path: 'status',
        message: '`status` must be one of placed, shipped, delivered, cancelled, not "shipping"',
        expected: 'one of placed, shipped, delivered, cancelled',
        allowed: ['placed', 'shipped', 'delivered', 'cancelled'],
        received: '"shipping"',
      },
    ]);
  });

  it('dots nested paths through arrays and objects', () => {
    const schema = z.object({ items: z.array(z.object({ sku: z.string(), qty: z.number().int().min(1) })) });
    const { fields } = issuesOf(schema, {
      items: [
        { sku: 'A', qty: 1 },
        { sku: 7, qty: 0 },
      ],
    });
    expect(fields.map((f) => [f.path, f.expected, f.received])).toEqual([
      ['items.1.sku', 'a string', 'a number'],
      ['items.1.qty', '>= 1', '0'],
    ]);
  });

  it('reports a missing key as missing, with what it should be', () => {
    const { issues, fields } = issuesOf(z.object({ customer: z.object({ id: z.string() }) }), { customer: {} });
    expect(fields).toEqual([
      {
        path: 'customer.id',
        expected: 'a string',
        received: 'missing',
        message: '`customer.id` is required (a string) but is missing',
      },
    ]);
    expect(isMissingIssue(issues[0]!, { customer: {} })).toBe(true);
    expect(missingFieldPaths(issues, { customer: {} })).toEqual(['customer.id']);
  });

  it('does not count a present but wrong value as missing (null included)', () => {
    const input = { id: null };
    const { issues, fields } = issuesOf(z.object({ id: z.string() }), input);
    expect(isMissingIssue(issues[0]!, input)).toBe(false);
    expect(fields[0]).toMatchObject({ message: '`id` must be a string, not null', received: 'null' });
  });

  it('lists what each branch of a union wanted', () => {
    const { fields } = issuesOf(z.object({ mode: z.union([z.literal('fast'), z.number()]) }), { mode: true });
    expect(fields[0]).toMatchObject({
      path: 'mode',
      expected: 'exactly "fast" or a number',
      message: '`mode` must be exactly "fast" or a number, not true',
    });
  });

  it('treats a union of literals like an enum', () => {
    const { fields } = issuesOf(z.object({ unit: z.union([z.literal('C'), z.literal('F')]) }), { unit: 'K' });
    expect(fields[0]).toMatchObject({ expected: 'one of C, F', allowed: ['C', 'F'] });
  });

  it('names a discriminated union’s options, and points into the closest object branch otherwise', () => {
    const tagged = z.object({
      by: z.discriminatedUnion('type', [
        z.object({ type: z.literal('id'), id: z.string() }),
        z.object({ type: z.literal('name'), name: z.string() }),
      ]),
    });
    expect(issuesOf(tagged, { by: { type: 'email' } }).fields[0]).toMatchObject({
      path: 'by.type',
      allowed: ['id', 'name'],
    });
    const shapes = z.object({
      by: z.union([z.object({ id: z.string() }), z.object({ name: z.string(), exact: z.boolean() })]),
    });
    const field = issuesOf(shapes, { by: { id: 5 } }).fields[0]!;
    expect(field.path).toBe('by');
    expect(field.message).toMatch(/^`by` matches none of the accepted forms; closest: `id`: /);
  });

  it('gives one issue per unknown key of a strict object', () => {
    const { fields } = issuesOf(z.strictObject({ a: z.string() }), { a: 'x', b: 1, c: 2 });
    expect(fields.map((f) => [f.path, f.message])).toEqual([
      ['b', '`b` is not an accepted field; remove it'],
      ['c', '`c` is not an accepted field; remove it'],
    ]);
  });

  it('phrases sizes, formats and refinements', () => {
    const schema = z.object({
      code: z.string().length(3),
      email: z.email(),
      tags: z.array(z.string()).max(1),
      even: z.number().refine((n) => n % 2 === 0, 'must be even'),
    });
    const { fields } = issuesOf(schema, { code: 'AB', email: 'nope', tags: ['a', 'b'], even: 3 });
    expect(fields.map((f) => [f.path, f.expected, f.received])).toEqual([
      ['code', 'exactly 3 character(s) long', '2 character(s)'],
      ['email', 'a valid email', '"nope"'],
      ['tags', 'at most 1 item(s) long', '2 item(s)'],
      ['even', undefined, '3'],
    ]);
    expect(fields[3]!.message).toBe('`even`: must be even');
  });

  it('describes the whole input when it is not an object', () => {
    expect(issuesOf(z.object({ a: z.string() }), 'text').fields[0]).toMatchObject({
      path: '',
      message: 'the input must be an object, not a string',
    });
  });
});

describe('summariseIssues', () => {
  it('shows the first few and counts the rest', () => {
    const issues = ['a', 'b', 'c', 'd', 'e'].map((message) => ({ path: message, message }));
    expect(summariseIssues(issues)).toBe('a; b; c; and 2 more');
    expect(summariseIssues(issues.slice(0, 2))).toBe('a; b');
  });
});

describe('toFieldIssues: the message the model repairs its call by', () => {
  // What each kind of problem says, as the model reads it: field, what was expected, what came.
  it.each([
    [
      'string min',
      z.object({ s: z.string().min(3) }),
      { s: 'ab' },
      ['`s` must be at least 3 character(s) long, not 2 character(s)'],
    ],
    [
      'string max',
      z.object({ s: z.string().max(2) }),
      { s: 'abc' },
      ['`s` must be at most 2 character(s) long, not 3 character(s)'],
    ],
    [
      'string length',
      z.object({ s: z.string().length(2) }),
      { s: 'abc' },
      ['`s` must be exactly 2 character(s) long, not 3 character(s)'],
    ],
    [
      'array min',
      z.object({ a: z.array(z.number()).min(2) }),
      { a: [1] },
      ['`a` must be at least 2 item(s) long, not 1 item(s)'],
    ],
    [
      'array max',
      z.object({ a: z.array(z.number()).max(1) }),
      { a: [1, 2] },
      ['`a` must be at most 1 item(s) long, not 2 item(s)'],
    ],
    ['number gt', z.object({ n: z.number().gt(5) }), { n: 5 }, ['`n` must be > 5, not 5']],
    ['number gte', z.object({ n: z.number().gte(5) }), { n: 4 }, ['`n` must be >= 5, not 4']],
    ['number lt', z.object({ n: z.number().lt(5) }), { n: 5 }, ['`n` must be < 5, not 5']],
    ['number lte', z.object({ n: z.number().lte(5) }), { n: 6 }, ['`n` must be <= 5, not 6']],
    ['int', z.object({ n: z.int() }), { n: 1.5 }, ['`n` must be an integer, not a number']],
    ['int type', z.object({ n: z.int() }), { n: 'x' }, ['`n` must be a number, not a string']],
    ['multiple', z.object({ n: z.number().multipleOf(3) }), { n: 4 }, ['`n` must be a multiple of 3, not 4']],
    ['email', z.object({ e: z.email() }), { e: 'nope' }, ['`e` must be a valid email, not "nope"']],
    ['regex', z.object({ r: z.string().regex(/^a+$/) }), { r: 'b' }, ['`r` must be a string matching /^a+$/, not "b"']],
    ['enum one', z.object({ e: z.literal('only') }), { e: 'x' }, ['`e` must be exactly "only", not "x"']],
    [
      'enum num',
      z.object({ e: z.union([z.literal(1), z.literal(true), z.literal(null)]) }),
      { e: 'x' },
      ['`e` must be one of 1, true, null, not "x"'],
    ],
    ['type object got array', z.object({ o: z.object({}) }), { o: [] }, ['`o` must be an object, not an array']],
    ['type got null', z.object({ o: z.string() }), { o: null }, ['`o` must be a string, not null']],
    ['refine', z.object({ x: z.number().refine((n) => n > 1, 'too low') }), { x: 0 }, ['`x`: too low']],
    [
      'union types',
      z.object({ u: z.union([z.string(), z.number()]) }),
      { u: true },
      ['`u` must be a string or a number, not true'],
    ],
    [
      'union objects',
      z.object({ u: z.union([z.object({ a: z.string() }), z.object({ b: z.number(), c: z.number() })]) }),
      { u: { a: 1 } },
      ['`u` matches none of the accepted forms; closest: `a`: Invalid input: expected string, received number'],
    ],
    [
      'union objects root',
      z.union([z.object({ a: z.string() }), z.string()]),
      5,
      ['the input must be an object or a string, not 5'],
    ],
    ['nonoptional', z.object({ n: z.string().nonoptional() }), {}, ['`n` is required (a string) but is missing']],
    [
      'missing, nothing expected to name',
      z.object({ n: z.any().refine(() => false, 'nope') }),
      {},
      ['`n` is required but is missing'],
    ],
    [
      'strict nested',
      z.object({ o: z.strictObject({ a: z.number() }) }),
      { o: { a: 1, b: 2, c: 3 } },
      ['`o.b` is not an accepted field; remove it', '`o.c` is not an accepted field; remove it'],
    ],
    ['root type', z.object({}), 'text', ['the input must be an object, not a string']],
    ['number min', z.object({ n: z.number().min(3) }), { n: 1 }, ['`n` must be >= 3, not 1']],
    [
      'a set too small',
      z.object({ s: z.set(z.number()).min(2) }),
      { s: new Set([1]) },
      ['`s` must be at least 2 item(s) long, not an object'],
    ],
    ['date', z.object({ d: z.date() }), { d: 'x' }, ['`d` must be a date, not a string']],
    ['undefined type', z.object({ u: z.undefined() }), { u: 1 }, ['`u` must be undefined, not a number']],
    ['bigint', z.object({ b: z.bigint().min(5n) }), { b: 1n }, ['`b` must be >= 5, not 1n']],
    ['array type', z.object({ a: z.array(z.string()) }), { a: 'x' }, ['`a` must be an array, not a string']],
    [
      'a key only Object.prototype has is missing',
      z.object({ toString: z.string() }),
      {},
      ['`toString` is required (a string) but is missing'],
    ],
  ] as [string, z.ZodType, unknown, string[]][])('%s', (_label, schema, input, messages) => {
    const result = schema.safeParse(input);
    if (result.success) throw new Error('expected a failure');
    expect(toFieldIssues(result.error.issues, input).map((issue) => issue.message)).toEqual(messages);
  });

  it('counts one issue per unknown key, and caps the list at max', () => {
    const schema = z.strictObject({ a: z.number(), b: z.string() });
    const input = { a: 'x', b: 1, c: 1, d: 2, e: 3 };
    const issues = schema.safeParse(input).error!.issues;
    expect(countFieldIssues(issues)).toBe(5);
    expect(toFieldIssues(issues, input)).toHaveLength(5);
    expect(toFieldIssues(issues, input, 4).map((i) => i.path)).toEqual(['a', 'b', 'c', 'd']);
    expect(toFieldIssues(issues, input, 0)).toEqual([]);
    expect(missingFieldPaths(issues, input)).toEqual([]);
  });

  it('summarises the first few messages and counts the rest, also of a capped list', () => {
    const issues = ['one', 'two', 'three', 'four'].map((message) => ({ path: '', message }));
    expect(summariseIssues(issues)).toBe('one; two; three; and 1 more');
    expect(summariseIssues(issues, 4)).toBe('one; two; three; four');
    expect(summariseIssues(issues.slice(0, 2), 3, 10)).toBe('one; two; and 8 more');
    expect(summariseIssues(issues, 2, 1)).toBe('one; two; and 2 more');
  });
});

describe('toFieldIssues: inputs and schemas that do not line up', () => {
  const fieldsOf = (schema: z.ZodType, input: unknown) => {
    const result = schema.safeParse(input);
    if (result.success) throw new Error('expected a failure');
    return toFieldIssues(result.error.issues, input);
  };

  it('says no input arrived rather than calling the whole input a missing field', () => {
    expect(fieldsOf(z.object({ a: z.string() }), undefined)).toEqual([
      { path: '', expected: 'an object', received: 'nothing', message: 'the input must be an object, not nothing' },
    ]);
  });

  it('a schema that reshapes its input reports fields the raw input lacks as missing, and never throws (null, undefined, text)', () => {
    const reshaped = z.preprocess(() => ({ order: {} }), z.object({ order: z.object({ id: z.string() }) }));
    for (const input of [null, undefined, 'text', {}]) {
      expect(fieldsOf(reshaped, input)).toEqual([
        {
          path: 'order.id',
          expected: 'a string',
          received: 'missing',
          message: '`order.id` is required (a string) but is missing',
        },
      ]);
    }
  });

  it('an unknown key is never a missing field, even where the raw input lacks its parent', () => {
    const reshaped = z.preprocess(
      () => ({ o: { a: 1, extra: 2 } }),
      z.object({ o: z.strictObject({ a: z.number() }) }),
    );
    const result = reshaped.safeParse({});
    expect(toFieldIssues(result.error!.issues, {}).map((f) => f.message)).toEqual([
      '`o.extra` is not an accepted field; remove it',
    ]);
    expect(missingFieldPaths(result.error!.issues, {})).toEqual([]);
  });

  it('counts a key set to undefined (a JavaScript caller) as missing', () => {
    expect(fieldsOf(z.object({ n: z.string() }), { n: undefined })[0]).toMatchObject({
      received: 'missing',
      message: '`n` is required (a string) but is missing',
    });
  });

  it('shows the value an unknown key holds, not its parent', () => {
    expect(fieldsOf(z.object({ o: z.strictObject({ a: z.number() }) }), { o: { a: 1, b: 'two' } })[0]).toMatchObject({
      path: 'o.b',
      received: '"two"',
    });
  });

  it('names an array or object received where a value of an enum was expected by its type, not its contents', () => {
    expect(fieldsOf(z.object({ s: z.enum(STATUSES) }), { s: ['placed'] })[0]!.message).toBe(
      '`s` must be one of placed, shipped, delivered, cancelled, not an array',
    );
    expect(fieldsOf(z.object({ s: z.enum(STATUSES) }), { s: { v: 'placed' } })[0]!.message).toBe(
      '`s` must be one of placed, shipped, delivered, cancelled, not an object',
    );
  });

  it('says never and void without an article', () => {
    expect(fieldsOf(z.object({ x: z.never() }), { x: 1 })[0]!.message).toBe('`x` must be never, not a number');
    expect(fieldsOf(z.object({ x: z.void() }), { x: 1 })[0]!.message).toBe('`x` must be void, not a number');
  });

  it('offers only allowed values JSON can carry (they go into the retry hint)', () => {
    const [field] = fieldsOf(z.object({ u: z.union([z.literal('a'), z.literal(5n), z.literal(undefined)]) }), {
      u: 'x',
    });
    expect(field).toMatchObject({ expected: 'exactly "a"', allowed: ['a'] });
    expect(() => JSON.stringify(field)).not.toThrow();
  });

  it('for a union of shapes, points at the branch that came closest (fewest problems, else the first)', () => {
    // The first branch misses two fields, the second has one wrong: the second is closest.
    const shapes = z.object({ u: z.union([z.object({ b: z.number(), c: z.number() }), z.object({ a: z.string() })]) });
    expect(fieldsOf(shapes, { u: { a: 1 } })[0]!.message).toBe(
      '`u` matches none of the accepted forms; closest: `a`: Invalid input: expected string, received number',
    );
    // A tie goes to the first branch; a problem with the value itself names no field.
    const mixed = z.object({ u: z.union([z.string(), z.object({ a: z.string() })]) });
    expect(fieldsOf(mixed, { u: { a: 1 } })[0]!.message).toBe(
      '`u` matches none of the accepted forms; closest: Invalid input: expected string, received object',
    );
  });

  it("lists a union's expected values only when every branch names one", () => {
    const schema = z.object({ u: z.union([z.number(), z.custom(() => false, 'never right')]) });
    expect(fieldsOf(schema, { u: 'x' })[0]!.message).toBe(
      '`u` matches none of the accepted forms; closest: Invalid input: expected number, received string',
    );
    expect(fieldsOf(z.object({ u: z.union([z.number(), z.nan()]) }), { u: 'x' })[0]!.message).toBe(
      '`u` must be a number or a nan, not "x"',
    );
  });
});
