import { describe, expect, it } from 'vitest';
import { dottedPath } from './dotted-path.js';

describe('dottedPath', () => {
  it('joins keys and indexes with dots; a symbol shows its description, or "symbol" without one', () => {
    expect(dottedPath(['items', 0, 'sku'])).toBe('items.0.sku');
    expect(dottedPath([])).toBe('');
    expect(dottedPath(['meta', Symbol('tag'), Symbol()])).toBe('meta.tag.symbol');
    expect(dottedPath([Symbol('')])).toBe('');
  });
});
