import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isMissingIssue, missingFieldPaths, summariseIssues, toFieldIssues } from './zod-issues.js';

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
    const { fields } = issuesOf(schema, { items: [{ sku: 'A', qty: 1 }, { sku: 7, qty: 0 }] });
    expect(fields.map((f) => [f.path, f.expected, f.received])).toEqual([
      ['items.1.sku', 'a string', 'a number'],
      ['items.1.qty', '>= 1', '0'],
    ]);
  });

  it('reports a missing key as missing, with what it should be', () => {
    const { issues, fields } = issuesOf(z.object({ customer: z.object({ id: z.string() }) }), { customer: {} });
    expect(fields).toEqual([{ path: 'customer.id', expected: 'a string', received: 'missing', message: '`customer.id` is required (a string) but is missing' }]);
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
    expect(fields[0]).toMatchObject({ path: 'mode', expected: 'exactly "fast" or a number', message: '`mode` must be exactly "fast" or a number, not true' });
  });

  it('treats a union of literals like an enum', () => {
    const { fields } = issuesOf(z.object({ unit: z.union([z.literal('C'), z.literal('F')]) }), { unit: 'K' });
    expect(fields[0]).toMatchObject({ expected: 'one of C, F', allowed: ['C', 'F'] });
  });

  it('names a discriminated union’s options, and points into the closest object branch otherwise', () => {
    const tagged = z.object({ by: z.discriminatedUnion('type', [z.object({ type: z.literal('id'), id: z.string() }), z.object({ type: z.literal('name'), name: z.string() })]) });
    expect(issuesOf(tagged, { by: { type: 'email' } }).fields[0]).toMatchObject({ path: 'by.type', allowed: ['id', 'name'] });
    const shapes = z.object({ by: z.union([z.object({ id: z.string() }), z.object({ name: z.string(), exact: z.boolean() })]) });
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
    const schema = z.object({ code: z.string().length(3), email: z.email(), tags: z.array(z.string()).max(1), even: z.number().refine((n) => n % 2 === 0, 'must be even') });
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
    expect(issuesOf(z.object({ a: z.string() }), 'text').fields[0]).toMatchObject({ path: '', message: 'the input must be an object, not a string' });
  });
});

describe('summariseIssues', () => {
  it('shows the first few and counts the rest', () => {
    const issues = ['a', 'b', 'c', 'd', 'e'].map((message) => ({ path: message, message }));
    expect(summariseIssues(issues)).toBe('a; b; c; and 2 more');
    expect(summariseIssues(issues.slice(0, 2))).toBe('a; b');
  });
});
