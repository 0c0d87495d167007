import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';

describe('lazySchema', () => {
  it('builds nothing until the schema is used, then builds it once', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.object({ n: z.number().int() });
    });
    expect(builds).toBe(0);
    expect(schema.safeParse({ n: 1 }).success).toBe(true);
    expect(schema.safeParse({ n: 1.5 }).success).toBe(false);
    expect(() => schema.parse({ n: 'x' })).toThrow();
    expect(builds).toBe(1);
  });

  it('behaves as the schema it stands for: composed, JSON Schema, instanceof, spread', () => {
    const inner = lazySchema(() => z.strictObject({ a: z.string().describe('an a') }).partial());
    const outer = z.object({ inner: inner.optional() });
    expect(outer.safeParse({ inner: { a: 'x' } }).success).toBe(true);
    expect(outer.safeParse({ inner: { b: 1 } }).success).toBe(false);
    expect(inner instanceof z.ZodObject).toBe(true);
    expect(z.toJSONSchema(inner)).toEqual(z.toJSONSchema(z.strictObject({ a: z.string().describe('an a') }).partial()));
    expect(Object.keys({ ...inner })).toContain('def');
    expect('_zod' in inner).toBe(true);
  });

  it('builds a schema shared by name once, whichever stand-in is used first', () => {
    let builds = 0;
    const build = () => {
      builds += 1;
      return z.number();
    };
    const name = `test.shared.${Math.random()}`;
    const first = lazySchema(build, { sharedAs: name });
    const second = lazySchema(build, { sharedAs: name });
    expect(second.safeParse(1).success).toBe(true);
    expect(first.safeParse('1').success).toBe(false);
    expect(builds).toBe(1);
    expect(first._zod).toBe(second._zod);
  });

  it('does not share a schema built without a name', () => {
    let builds = 0;
    const build = () => {
      builds += 1;
      return z.number();
    };
    lazySchema(build).parse(1);
    lazySchema(build).parse(2);
    expect(builds).toBe(2);
  });
});
