import { describe, expect, it } from 'vitest';
import { DefinitionError, ReservedValidatorNameError } from './definition-error.js';

describe('DefinitionError', () => {
  it('is recognised by its marker, from any copy of the module, and nothing else is', () => {
    const error = new DefinitionError('invalid_tool_name', 'bad name');
    expect(DefinitionError.isInstance(error)).toBe(true);
    expect(DefinitionError.isInstance({ [Symbol.for('cairn.DefinitionError')]: true })).toBe(true);
    for (const other of [
      null,
      undefined,
      'invalid_tool_name',
      {},
      new Error('bad name'),
      { [Symbol.for('cairn.DefinitionError')]: 'yes' },
    ]) {
      expect(DefinitionError.isInstance(other)).toBe(false);
    }
    expect(error).toMatchObject({ name: 'DefinitionError', code: 'invalid_tool_name', message: 'bad name' });
  });

  it('a reserved validator name says which name, and is a DefinitionError too', () => {
    const error = new ReservedValidatorNameError('json');
    expect(error).toMatchObject({
      name: 'ReservedValidatorNameError',
      code: 'reserved_validator_name',
      validatorName: 'json',
      message: 'Validator name "json" is reserved by Cairn; choose another name.',
    });
    expect(ReservedValidatorNameError.isInstance(error)).toBe(true);
    expect(DefinitionError.isInstance(error)).toBe(true);
    for (const other of [
      null,
      undefined,
      {},
      new DefinitionError('reserved_validator_name', 'x'),
      { [Symbol.for('cairn.ReservedValidatorNameError')]: 1 },
    ]) {
      expect(ReservedValidatorNameError.isInstance(other)).toBe(false);
    }
  });
});
