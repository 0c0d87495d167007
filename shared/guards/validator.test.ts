import { describe, expect, it } from 'vitest';
import {
  RESERVED_VALIDATOR_NAMES,
  Result,
  Validator,
  assertValidatorName,
  runPostHooks,
  validator,
} from './validator.js';
import { DefinitionError, ReservedValidatorNameError } from '../failures/definition-error.js';
import type { JsonValue } from '../json/json.js';

interface Book {
  title: string;
  isbn: string;
}

const ISBN_FEEDBACK = 'An ISBN must be 13 digits; only 10 are present, so add the missing digits.';

// Seed 000's ensure_isbn_valid, in both forms.
const ensureIsbnValid = () =>
  validator('ensure_isbn_valid', (book: Book) =>
    book.isbn.length === 13 ? Result.success(book) : Result.failure(ISBN_FEEDBACK),
  );
class EnsureIsbnValid extends Validator<Book> {
  readonly name = 'ensure_isbn_valid';
  run(book: Book): Result<Book> {
    return book.isbn.length === 13 ? Result.success(book) : Result.failure(ISBN_FEEDBACK);
  }
}

const good = { title: 'Dune', isbn: '9780441013593' };
const bad = { title: 'Dune', isbn: '0441013597' };

describe('Result', () => {
  it('is plain data with a marker', () => {
    expect(Result.isResult(Result.success())).toBe(true);
    expect(Result.isResult(Result.failure('no'))).toBe(true);
    expect(Result.isResult({ ok: true, value: 1 })).toBe(false);
    expect(Result.success()).not.toHaveProperty('value');
    expect(JSON.parse(JSON.stringify(Result.success({ a: 1 })))).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe('the two forms', () => {
  it.each([
    ['function form', ensureIsbnValid],
    ['class form', () => new EnsureIsbnValid()],
  ])('%s accepts and refuses the same way', async (_label, makeHook) => {
    const hook = makeHook();
    expect(hook).toBeInstanceOf(Validator);
    expect(hook.name).toBe('ensure_isbn_valid');
    expect(await runPostHooks([hook], good, {})).toEqual({ status: 'ok', value: good });
    expect(await runPostHooks([hook], bad, {})).toEqual({
      status: 'validator_failed',
      validator: 'ensure_isbn_valid',
      feedback: ISBN_FEEDBACK,
    });
  });

  it('names a function-form validator after the function', () => {
    expect(
      validator(function nonEmpty(text: string) {
        return text ? Result.success() : Result.failure('empty');
      }).name,
    ).toBe('nonEmpty');
  });

  it('refuses an anonymous function and a missing function', () => {
    expect(() => validator((x: unknown) => x)).toThrow(DefinitionError);
    expect(() => validator('named', undefined as unknown as () => unknown)).toThrow(
      expect.objectContaining({ code: 'invalid_validator_name', message: 'validator("named") needs a function.' }),
    );
    expect(() => assertValidatorName('isbn-13')).toThrow(
      expect.objectContaining({
        code: 'invalid_validator_name',
        message: 'Validator name "isbn-13" must be an identifier such as isbn_13 (named functions work too).',
      }),
    );
    // Not a string at all, even one whose text would pass.
    expect(() => assertValidatorName(undefined)).toThrow(expect.objectContaining({ code: 'invalid_validator_name' }));
  });
});

describe('reserved names', () => {
  it.each([...RESERVED_VALIDATOR_NAMES, 'outputSchema', 'OUTPUT_SCHEMA', 'retryBudget'])(
    'refuses %s at definition time',
    (name) => {
      const attempt = () => validator(name, () => Result.success());
      expect(attempt).toThrow(ReservedValidatorNameError);
      try {
        attempt();
      } catch (err) {
        expect(ReservedValidatorNameError.isInstance(err) && err.validatorName).toBe(name);
      }
    },
  );

  it('accepts names that only contain a reserved word', () => {
    expect(() => assertValidatorName('schema_version_check')).not.toThrow();
    expect(() => assertValidatorName('has spaces')).toThrow(DefinitionError);
  });
});

describe('runPostHooks rules (seed 000)', () => {
  it('success with a value replaces the result', async () => {
    const hook = validator('tidy', (book: Book) => Result.success({ ...book, title: book.title.toUpperCase() }));
    expect(await runPostHooks([hook], good, {})).toEqual({ status: 'ok', value: { ...good, title: 'DUNE' } });
  });

  it('success without a value keeps the tool’s result', async () => {
    expect(await runPostHooks([validator('ok', () => Result.success())], good, {})).toEqual({
      status: 'ok',
      value: good,
    });
  });

  it('failure stops with the validator’s name and feedback; later hooks do not run', async () => {
    let laterRan = false;
    const later = validator('later', () => ((laterRan = true), Result.success()));
    const outcome = await runPostHooks(
      [validator('non_empty', () => Result.failure('The summary is empty; write at least one sentence.')), later],
      '',
      {},
    );
    expect(outcome).toEqual({
      status: 'validator_failed',
      validator: 'non_empty',
      feedback: 'The summary is empty; write at least one sentence.',
    });
    expect(laterRan).toBe(false);
  });

  it('an empty feedback still tells the model which validator refused', async () => {
    expect(await runPostHooks([validator('strict', () => Result.failure('  '))], 1, {})).toMatchObject({
      feedback: 'strict refused the result.',
    });
  });

  it.each([
    ['true', true, true],
    ['a string', 'tidied', 'tidied'],
    ['null', null, null],
    ['undefined (becomes null)', undefined, null],
  ])('a non-Result return (%s) becomes the new result', async (_label, returned, expected) => {
    expect(await runPostHooks([validator('fmt', () => returned)], { raw: 1 }, {})).toEqual({
      status: 'ok',
      value: expected,
    });
  });

  it('a non-JSON return is a post_hook_error', async () => {
    const outcome = await runPostHooks([validator('fmt', () => ({ n: 1n }))], 1, {});
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'post_hook_error', kind: 'internal' } });
    expect(outcome).toMatchObject({
      error: { message: expect.stringMatching(/^post_hook fmt returned a value that is not JSON: BigInt 1n at `n`/) },
    });
  });

  it('trims a failure’s feedback, and names a thrown non-error Error', async () => {
    expect(await runPostHooks([validator('strict', () => Result.failure('  too short  '))], 1, {})).toEqual({
      status: 'validator_failed',
      validator: 'strict',
      feedback: 'too short',
    });
    const thrown = await runPostHooks(
      [
        validator('raw', () => {
          throw 'plain text';
        }),
      ],
      1,
      {},
    );
    expect(thrown).toMatchObject({ status: 'error', error: { message: 'post_hook Error: plain text' } });
  });

  it('a throw is a post_hook_error "post_hook <ErrorName>: <message>"', async () => {
    const outcome = await runPostHooks(
      [
        validator('boom', () => {
          throw new TypeError('isbn is undefined');
        }),
      ],
      1,
      {},
    );
    expect(outcome).toEqual({
      status: 'error',
      error: {
        code: 'post_hook_error',
        kind: 'internal',
        name: 'TypeError',
        message: 'post_hook TypeError: isbn is undefined',
      },
    });
  });

  it('a rejected promise counts as a throw; async hooks are awaited', async () => {
    const outcome = await runPostHooks(
      [
        validator('slow', async () => {
          throw new RangeError('too far');
        }),
      ],
      1,
      {},
    );
    expect(outcome).toMatchObject({ error: { message: 'post_hook RangeError: too far' } });
    expect(await runPostHooks([validator('later', async (n: number) => Result.success(n + 1))], 1, {})).toEqual({
      status: 'ok',
      value: 2,
    });
  });

  it('runs hooks in order, each seeing the previous value, with the call’s arguments', async () => {
    const trail: JsonValue[] = [];
    const hooks = [
      validator('add_one', (n: number) => (trail.push(n), n + 1)),
      validator('keep', (n: number) => (trail.push(n), Result.success())),
      validator('double', (n: number, args: { factor: number }) => (trail.push(n), Result.success(n * args.factor))),
    ];
    expect(await runPostHooks(hooks, 1, { factor: 10 })).toEqual({ status: 'ok', value: 20 });
    expect(trail).toEqual([1, 2, 2]);
  });

  it('no hooks: the value as it is', async () => {
    expect(await runPostHooks([], { a: 1 }, {})).toEqual({ status: 'ok', value: { a: 1 } });
  });
});
