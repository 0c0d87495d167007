import { describe, expect, it } from 'vitest';
import { assertNever } from './assert-never.js';

type Shape = { readonly type: 'circle' } | { readonly type: 'square' };

function sides(shape: Shape): number {
  switch (shape.type) {
    case 'circle':
      return 0;
    case 'square':
      return 4;
    default:
      return assertNever(shape, 'shape');
  }
}

describe('assertNever', () => {
  it('names the variant nobody handled, by its type when it has one', () => {
    expect(() => sides({ type: 'triangle' } as unknown as Shape)).toThrow('unhandled shape: "triangle"');
    expect(() => assertNever('hold' as never)).toThrow('unhandled variant: "hold"');
    expect(() => assertNever(3 as never)).toThrow('unhandled variant: 3');
    expect(() => assertNever(null as never)).toThrow('unhandled variant: null');
    expect(() => assertNever({ kind: 'x' } as never)).toThrow('unhandled variant: [object Object]');
    expect(sides({ type: 'square' })).toBe(4);
  });

  it('is a compile error where a variant is left unhandled', () => {
    const partial = (shape: Shape): number => {
      if (shape.type === 'circle') return 0;
      // @ts-expect-error -- 'square' is not handled: `shape` is not `never` here
      return assertNever(shape);
    };
    expect(() => partial({ type: 'square' })).toThrow('unhandled variant: "square"');
  });
});
