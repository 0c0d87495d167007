import { describe, expect, it } from 'vitest';
import { ToolFailure } from './tool-failure.js';
import { DefinitionError, ReservedValidatorNameError } from './definition-error.js';

describe('ToolFailure', () => {
  it('has a stable name and is recognised by marker, not by class', () => {
    const failure = ToolFailure.unavailable('down');
    expect(failure).toBeInstanceOf(Error);
    expect(failure.name).toBe('ToolFailure');
    expect(ToolFailure.isInstance(failure)).toBe(true);
    // A ToolFailure from another copy of the module carries the same registered symbol.
    const foreign = Object.assign(new Error('x'), { [Symbol.for('cairn.ToolFailure')]: true, code: 'timeout' });
    expect(ToolFailure.isInstance(foreign)).toBe(true);
    expect(ToolFailure.isInstance(Object.assign(new Error('x'), { name: 'ToolFailure', code: 'timeout' }))).toBe(false);
    expect(ToolFailure.isInstance(null)).toBe(false);
    expect(ToolFailure.isInstance('ToolFailure')).toBe(false);
  });

  it.each([
    ['rateLimited', () => ToolFailure.rateLimited('429', 1500), 'rate_limited', { retryAfterMs: 1500 }, undefined],
    ['rateLimited without a delay', () => ToolFailure.rateLimited('429'), 'rate_limited', undefined, undefined],
    ['unavailable', () => ToolFailure.unavailable('503'), 'tool_unavailable', undefined, undefined],
    [
      'invalidArguments',
      () =>
        ToolFailure.invalidArguments('no window', {
          missingFields: ['window'],
          clarifyingQuestion: 'Morning or afternoon?',
        }),
      'invalid_arguments',
      { missingFields: ['window'], clarifyingQuestion: 'Morning or afternoon?' },
      undefined,
    ],
    [
      'partialData',
      () => ToolFailure.partialData([1, 2], { message: 'page 1 of 3', nextInput: { page: 2 } }),
      'partial_data',
      { message: 'page 1 of 3', nextInput: { page: 2 } },
      [1, 2],
    ],
    [
      'semantic',
      () => ToolFailure.semantic('a name in an id field', { message: 'use the customer id' }),
      'semantic_error',
      { message: 'use the customer id' },
      undefined,
    ],
    ['timeout', () => ToolFailure.timeout('upstream slow'), 'timeout', undefined, undefined],
  ])('%s sets code, hint and partial result', (_label, make, code, hint, partial) => {
    const failure = make();
    expect(failure.code).toBe(code);
    expect(failure.hint).toEqual(hint);
    expect(failure.partialResult).toEqual(partial);
    expect('hint' in failure).toBe(hint !== undefined);
  });

  it('keeps a cause', () => {
    const cause = new Error('socket hang up');
    expect(new ToolFailure('tool_unavailable', 'down', { cause }).cause).toBe(cause);
  });
});

describe('ToolFailure: what the activity reads of it', () => {
  it('keeps the message; leaves out a hint, a partial result and a cause it was not given', () => {
    for (const failure of [
      ToolFailure.invalidArguments('bad'),
      ToolFailure.semantic('odd'),
      new ToolFailure('timeout', 'slow'),
    ]) {
      expect(Object.keys(failure)).not.toContain('hint');
      expect('partialResult' in failure).toBe(false);
      expect('cause' in failure).toBe(false);
    }
    expect(ToolFailure.semantic('odd').message).toBe('odd');
    expect(ToolFailure.partialData(null, { message: 'nothing yet' })).toMatchObject({
      message: 'nothing yet',
      partialResult: null,
      hint: { message: 'nothing yet' },
    });
    expect(Object.keys(ToolFailure.partialData([], { message: 'm' }).hint!)).toEqual(['message']);
    expect(ToolFailure.isInstance({ [Symbol.for('cairn.ToolFailure')]: 'yes' })).toBe(false);
  });
});

describe('definition errors', () => {
  it('follow the same conventions', () => {
    const reserved = new ReservedValidatorNameError('schema');
    expect(reserved.name).toBe('ReservedValidatorNameError');
    expect(reserved.code).toBe('reserved_validator_name');
    expect(reserved.validatorName).toBe('schema');
    expect(ReservedValidatorNameError.isInstance(reserved)).toBe(true);
    expect(DefinitionError.isInstance(reserved)).toBe(true);
    const plain = new DefinitionError('invalid_tool_name', 'bad');
    expect(plain.name).toBe('DefinitionError');
    expect(ReservedValidatorNameError.isInstance(plain)).toBe(false);
  });
});
