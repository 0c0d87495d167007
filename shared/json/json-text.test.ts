import { seededRandom } from '../../test/support/seeded-random.js';
import { describe, expect, it } from 'vitest';
import { describeJsonSyntaxError, findJsonSyntaxError, parseJsonText } from './json-text.js';
import { slowIt } from '../../test/support/slow-it.js';

const random = seededRandom;

const accepts = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('parseJsonText', () => {
  it('parses valid JSON', () => {
    expect(parseJsonText('{"a":[1,2,{"b":null}]}')).toEqual({ ok: true, value: { a: [1, 2, { b: null }] } });
    for (const text of ['[]', '{}', '[[1],{"b":[]}]', 'true', ' \n[1] ', '"\\u00e9\\n"', '-0.5e+3']) {
      expect(parseJsonText(text)).toEqual({ ok: true, value: JSON.parse(text) });
      expect(findJsonSyntaxError(text)).toBeUndefined();
    }
  });

  it('locates seed 002’s truncated output at its end, with line, column and excerpt', () => {
    const text = '{"orders": [{"id": "O-1", "total"';
    const result = parseJsonText(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ position: text.length, line: 1, column: text.length + 1 });
    expect(result.error.message).toBe(
      "the text ends too early (truncated?): expected ':' after the property name with 3 bracket(s) still open",
    );
    expect(result.error.excerpt).toBe('…rders": [{"id": "O-1", "total"⟨here⟩');
    expect(describeJsonSyntaxError(result.error)).toContain(
      `at position ${text.length} (line 1, column ${text.length + 1})`,
    );
  });

  it.each([
    ['{"a": 1,}', 8, 1, 9, 'expected a property name in double quotes but found "}"'],
    ['{\n  "a": 1\n  "b": 2\n}', 13, 3, 3, `expected ',' or '}' but found "\\""`],
    ['[1, 2', 5, 1, 6, "the text ends too early (truncated?): expected ',' or ']' with 1 bracket(s) still open"],
    ["{'a': 1}", 1, 1, 2, "expected a property name in double quotes or '}' but found \"'\""],
    ['{"a": tru', 9, 1, 10, 'the text ends too early (truncated?) inside true'],
    ['{"a": "x', 8, 1, 9, 'the text ends too early (truncated?) inside a string'],
    ['{"a": "x\\q"}', 8, 1, 9, 'invalid escape \\q inside a string'],
    ['[1] [2]', 4, 1, 5, 'unexpected "[" after the end of the JSON value'],
    ['{"a": 01}', 7, 1, 8, `expected ',' or '}' but found "1"`],
    ['', 0, 1, 1, 'the text ends too early (truncated?): expected a value'],
    ['{"a" 1}', 5, 1, 6, `expected ':' after the property name but found "1"`],
    [
      '{"a"',
      4,
      1,
      5,
      "the text ends too early (truncated?): expected ':' after the property name with 1 bracket(s) still open",
    ],
    ['[1,', 3, 1, 4, 'the text ends too early (truncated?): expected a value with 1 bracket(s) still open'],
    ['{"a":[1}', 7, 1, 8, `expected ',' or ']' but found "}"`],
    ['[1]]', 3, 1, 4, 'unexpected "]" after the end of the JSON value'],
    ['{"a":1}}', 7, 1, 8, 'unexpected "}" after the end of the JSON value'],
    ['{"a": "\\u12"}', 7, 1, 8, 'invalid \\u escape inside a string'],
    ['{"a": "\\u12', 11, 1, 12, 'the text ends too early (truncated?) inside a string'],
    ['{"a": "x\\', 9, 1, 10, 'the text ends too early (truncated?) inside a string'],
    ['{"a": "x\ny"}', 8, 1, 9, 'unescaped control character inside a string'],
    ['-', 1, 1, 2, 'the text ends too early (truncated?) inside a number'],
    ['[1.', 3, 1, 4, 'the text ends too early (truncated?) inside a number'],
    ['[1.x]', 2, 1, 3, 'invalid number "1.x"'],
    ['[1e]', 2, 1, 3, 'invalid number "1e]"'],
    ['[-a]', 1, 1, 2, 'invalid number starting "-a]"'],
    ['{"a": nul', 9, 1, 10, 'the text ends too early (truncated?) inside null'],
    ['{"a": nax}', 6, 1, 7, 'expected a value but found "n"'],
  ])('locates the error in %j', (text, position, line, column, message) => {
    const result = parseJsonText(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ position, line, column, message });
  });

  it.each([
    ['{"a":', 'the text ends too early (truncated?): expected a value with 1 bracket(s) still open'],
    ['{"a":1', "the text ends too early (truncated?): expected ',' or '}' with 1 bracket(s) still open"],
    ['{"a\u0001": 1}', 'unescaped control character inside a string'],
    ['[1,]', 'expected a value but found "]"'],
    ['!', 'expected a value but found "!"'],
    ['[9 x]', `expected ',' or ']' but found "x"`],
    ['["a b" x]', `expected ',' or ']' but found "x"`],
    ['[-', 'the text ends too early (truncated?) inside a number'],
    ['[1Ex]', 'invalid number "1Ex"'],
    ['[1E', 'the text ends too early (truncated?) inside a number'],
    ['[truex]', `expected ',' or ']' but found "x"`],
  ])('says what is wrong in %j', (text, message) => {
    const result = parseJsonText(text);
    expect(result.ok ? undefined : result.error.message).toBe(message);
  });

  it('shows 30 characters before the error and 15 after, marking only what it leaves out', () => {
    const excerpt = (text: string) => {
      const result = parseJsonText(text);
      return result.ok ? undefined : result.error.excerpt;
    };
    expect(excerpt(`${' '.repeat(30)}x`)).toBe(`${' '.repeat(30)}⟨here⟩x`);
    expect(excerpt(`${' '.repeat(31)}x`)).toBe(`…${' '.repeat(30)}⟨here⟩x`);
    expect(excerpt(`x${'y'.repeat(14)}`)).toBe(`⟨here⟩x${'y'.repeat(14)}`);
    expect(excerpt(`[1, x${'y'.repeat(20)}`)).toBe(`[1, ⟨here⟩x${'y'.repeat(14)}…`);
    // Line breaks and tabs show as spaces, so the excerpt stays one line.
    expect(excerpt('{\n"a"\t1}')).toBe('{ "a" ⟨here⟩1}');
  });

  slowIt('agrees with JSON.parse on what is valid (seeded fuzz of mutated JSON)', () => {
    const next = random(3);
    const seeds = [
      '{"a":[1,2.5e3,{"b":null}],"c":"\\u00e9\\n"}',
      '[true,false,null,-0.1]',
      '"str"',
      '{"k":{"k":{"k":[]}}}',
    ];
    const alphabet = '{}[]",:.-+eE0123456789 \\tnulrfas';
    for (let i = 0; i < 5_000; i++) {
      const chars = [...seeds[i % seeds.length]!];
      const edits = 1 + Math.floor(next() * 3);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(next() * (chars.length + 1));
        const roll = next();
        if (roll < 0.33) chars.splice(at, 1);
        else if (roll < 0.66) chars.splice(at, 0, alphabet[Math.floor(next() * alphabet.length)]!);
        else chars.length = at; // truncate
      }
      const text = chars.join('');
      const found = findJsonSyntaxError(text);
      expect(found === undefined, `text ${JSON.stringify(text)}`).toBe(accepts(text));
      if (found) expect(found.position).toBeLessThanOrEqual(text.length);
    }
  });

  it('handles deep nesting without recursion', () => {
    expect(findJsonSyntaxError('['.repeat(100_000))?.message).toMatch(/100000 bracket\(s\) still open/);
  });

  slowIt(
    "parses 200,000 levels (V8's JSON.parse is iterative: measured without RangeError up to 5,000,000) and places an error in deep text",
    () => {
      const deep = parseJsonText(`${'['.repeat(200_000)}1${']'.repeat(200_000)}`);
      expect(deep.ok).toBe(true);
      const broken = parseJsonText(`${'['.repeat(200_000)}1,]${']'.repeat(199_999)}`);
      expect(broken).toMatchObject({ ok: false, error: { position: 200_002 } });
    },
  );
});
