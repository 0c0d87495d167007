import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/seeded-random.js';
import { deepJson, randomJson } from '../../test/support/json-values.js';
import { MAX_JSON_DEPTH, toJsonValue } from './json-safe.js';
import { slowIt } from '../../test/support/slow-it.js';

describe('toJsonValue', () => {
  it('keeps JSON as it is and follows JSON.stringify where nothing is lost', () => {
    const date = new Date('2026-01-02T03:04:05.000Z');
    expect(toJsonValue({ a: [1, 'x', null, true], d: date, gone: undefined, z: -0 })).toEqual({
      ok: true,
      value: { a: [1, 'x', null, true], d: '2026-01-02T03:04:05.000Z', z: 0 },
    });
    expect(toJsonValue(undefined)).toEqual({ ok: true, value: null });
  });

  it('keeps a __proto__ key as data', () => {
    const result = toJsonValue(JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(result.ok && Object.keys(result.value as object)).toEqual(['__proto__']);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('accepts shared (non-cyclic) references', () => {
    const shared = { id: 1 };
    expect(toJsonValue([shared, shared])).toEqual({ ok: true, value: [{ id: 1 }, { id: 1 }] });
  });

  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  it.each([
    [
      'BigInt',
      { orders: [{ total: 10n }] },
      'orders.0.total',
      'BigInt 10n at `orders.0.total` is not JSON; convert it to a number or a string.',
    ],
    ['NaN', { x: NaN }, 'x', 'NaN at `x` is not JSON; use null or a string instead.'],
    ['Infinity', [Infinity], '0', 'Infinity at `0` is not JSON; use null or a string instead.'],
    ['a function', { f: function load() {} }, 'f', 'function load at `f` is not JSON; return data, not code.'],
    ['a symbol', Symbol('s'), '', 'Symbol(s) at the top level is not JSON; use a string instead.'],
    ['undefined in an array', [1, undefined], '1', 'undefined at `1` is not JSON; use null instead.'],
    [
      'a Map',
      { m: new Map() },
      'm',
      'a Map at `m` is not JSON; convert it to plain objects, arrays, strings and numbers.',
    ],
    [
      'a Promise',
      Promise.resolve(1),
      '',
      'a Promise (missing await?) at the top level is not JSON; convert it to plain objects, arrays, strings and numbers.',
    ],
    ['a cycle', cyclic, 'self', 'a circular reference at `self` is not JSON; return a tree, not a graph.'],
  ])('refuses %s with the path', (_label, value, path, message) => {
    expect(toJsonValue(value)).toEqual({ ok: false, path, message });
  });

  slowIt('converts seeded JSON to an equal value (a JSON round trip)', () => {
    const next = seededRandom(9);
    for (let i = 0; i < 1_000; i++) {
      const value = randomJson(next, { maxDepth: 1 + (i % 6), maxWidth: 1 + (i % 7) });
      expect(toJsonValue(value)).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)) });
    }
  });

  it('refuses values nested deeper than MAX_JSON_DEPTH with the path, however deep, without recursion', () => {
    expect(toJsonValue(deepJson(MAX_JSON_DEPTH - 1)).ok).toBe(true);
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      const result = toJsonValue(deepJson(depth, 'object'));
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.path).toBe(
          Array(MAX_JSON_DEPTH + 1)
            .fill('a')
            .join('.'),
        );
        expect(result.message).toMatch(/nested over 256 levels deep/);
      }
    }
  });

  it("calls toJSON once, keeps its owner as an ancestor, and counts the replacement's own toJSON-bearing children", () => {
    const inner = { toJSON: () => 'inner' };
    const outer = { toJSON: () => ({ inner, again: { toJSON: () => 2 } }) };
    expect(toJsonValue({ outer })).toEqual({ ok: true, value: { outer: { inner: 'inner', again: 2 } } });
    const selfish: { toJSON(): unknown } = { toJSON: () => ({ me: selfish }) };
    expect(toJsonValue(selfish)).toMatchObject({ ok: false, path: 'me' });
  });
});

describe('toJsonValue: toJSON, binary data and what it does not catch', () => {
  it('calls toJSON with the key, as JSON.stringify does, and lets a toJSON value appear twice', () => {
    const keyed = { toJSON: (key: string) => `key:${key}` };
    const value = { top: keyed, list: [keyed, keyed] };
    expect(toJsonValue(value)).toStrictEqual({ ok: true, value: JSON.parse(JSON.stringify(value)) });
    expect(toJsonValue(keyed)).toStrictEqual({ ok: true, value: 'key:' });
    const boxed = { toJSON: () => ({ a: 1 }) };
    expect(toJsonValue([boxed, boxed])).toStrictEqual({ ok: true, value: [{ a: 1 }, { a: 1 }] });
  });

  it('does not call a toJSON found on what toJSON returned', () => {
    const outer = { toJSON: () => ({ toJSON: () => 'inner' }) };
    expect(toJsonValue(outer)).toMatchObject({ ok: false, path: 'toJSON' });
  });

  it('refuses binary data and names an anonymous function', () => {
    for (const binary of [new Uint8Array(2), new ArrayBuffer(2), new DataView(new ArrayBuffer(2))])
      expect(toJsonValue({ b: binary })).toMatchObject({
        ok: false,
        path: 'b',
        message: expect.stringMatching(/^binary data at `b`/),
      });
    expect(toJsonValue([() => 1])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^function \(anonymous\) at `0`/),
    });
  });

  it('lets an error thrown while reading the value through', () => {
    const getter = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    expect(() => toJsonValue({ getter })).toThrow('no');
  });
});
