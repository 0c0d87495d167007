import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import type { JsonValue } from './json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('is valid JSON for the same value', () => {
    const value: JsonValue = { 'ü': 'x', '"q"': [true, false, -0.5, 1e21], __proto__x: 'y', '': '' };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('skips undefined-valued keys as JSON does', () => {
    expect(canonicalJson({ a: 1, b: undefined } as unknown as JsonValue)).toBe('{"a":1}');
  });
});
