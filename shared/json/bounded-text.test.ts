import { describe, expect, it } from 'vitest';
import { boundText, renderValue, truncateText } from './bounded-text.js';

describe('truncateText and boundText', () => {
  it('keep a text of exactly the bound whole', () => {
    expect(truncateText('abcde', 5)).toBe('abcde');
    expect(boundText('abcde', 5)).toBe('abcde');
  });

  it('cut a longer text and say how much was cut; boundText keeps the marker within the bound', () => {
    expect(truncateText('abcdef', 5)).toBe('abcde… [1 more chars cut]');
    const bounded = boundText('x'.repeat(100), 30);
    expect(bounded.length).toBeLessThanOrEqual(30);
    expect(bounded).toMatch(/^x+… \[\d+ more chars cut\]$/);
    expect(boundText(bounded, 30)).toBe(bounded);
  });

  it('never split a surrogate pair at the cut, and keep a pair that ends at it', () => {
    for (const pair of ['\u{10000}', '\u{10FFFF}', '😀']) {
      expect(truncateText(`${'a'.repeat(9)}${pair}bbb`, 10)).toBe(`${'a'.repeat(9)}… [5 more chars cut]`);
      expect(truncateText(`${'a'.repeat(8)}${pair}bbb`, 10)).toBe(`${'a'.repeat(8)}${pair}… [3 more chars cut]`);
    }
  });
});

describe('renderValue', () => {
  it('names functions, anonymous ones included', () => {
    expect(renderValue(function lookup() {})).toBe('function lookup');
    expect(
      renderValue(
        (
          () => () =>
            1
        )(),
      ),
    ).toBe('function (anonymous)');
  });
});
