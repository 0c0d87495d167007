/**
 * Parsing JSON text with a useful error: what is wrong, at which position, line and column, and
 * the text around it. `JSON.parse` does the parsing; on failure a small scanner of our own finds
 * the spot, so the message does not depend on the V8 version (and truncated input gets a
 * position too, which V8 omits). Workflow-safe, deterministic.
 */
import type { JsonValue } from './json.js';

/** Where and why JSON text failed to parse. Positions count UTF-16 units; line and column from 1. */
export interface JsonSyntaxError {
  readonly message: string;
  readonly position: number;
  readonly line: number;
  readonly column: number;
  /** Up to 30 units before the position and 15 after, with `⟨here⟩` at the position. */
  readonly excerpt: string;
}

export type JsonParseResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly error: JsonSyntaxError };

/** Parse JSON text; never throws. */
export function parseJsonText(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (err) {
    const found = findJsonSyntaxError(text) ?? {
      position: 0,
      message: err instanceof Error ? err.message : 'invalid JSON',
    };
    return { ok: false, error: withPlace(text, found.position, found.message) };
  }
}

/** One line for people and models: `<what> at position 37 (line 1, column 38), near <excerpt>`. */
export function describeJsonSyntaxError(error: JsonSyntaxError): string {
  return `${error.message} at position ${error.position} (line ${error.line}, column ${error.column}), near ${error.excerpt}`;
}

function withPlace(text: string, position: number, message: string): JsonSyntaxError {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  const head = position > 30 ? `…${text.slice(position - 30, position)}` : before;
  const tail = text.length - position > 15 ? `${text.slice(position, position + 15)}…` : text.slice(position);
  const excerpt = `${head}⟨here⟩${tail}`.replace(/[\r\n\t]/g, ' ');
  return { message, position, line, column, excerpt };
}

type Expect = 'value' | 'value_or_close' | 'key' | 'key_or_close' | 'colon' | 'comma_or_close' | 'end';

const EXPECTED: Record<Expect, string> = {
  value: 'a value',
  value_or_close: "a value or ']'",
  key: 'a property name in double quotes',
  key_or_close: "a property name in double quotes or '}'",
  colon: "':' after the property name",
  comma_or_close: "',' or a closing bracket", // narrowed to the open bracket where it is used
  end: 'nothing more',
};

/** Every end-of-input message starts with this: truncation is the common case (seed 002). */
const TRUNCATED = 'the text ends too early (truncated?)';

interface Found {
  readonly position: number;
  readonly message: string;
}

/** The first syntax error in `text`, or undefined if it is valid JSON. Iterative: no deep recursion. */
export function findJsonSyntaxError(text: string): { readonly position: number; readonly message: string } | undefined {
  const open: string[] = [];
  let i = 0;
  let expect: Expect = 'value';
  const fail = (message: string, at = i): Found => ({ position: at, message });
  const afterValue = (): Expect => (open.length === 0 ? 'end' : 'comma_or_close');
  for (;;) {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
    if (i >= text.length) {
      if (expect === 'end') return undefined;
      const close = open[open.length - 1] === '[' ? ']' : '}';
      const wanted = expect === 'comma_or_close' ? `',' or '${close}'` : EXPECTED[expect];
      const unclosed = open.length > 0 ? ` with ${open.length} bracket(s) still open` : '';
      return fail(`${TRUNCATED}: expected ${wanted}${unclosed}`);
    }
    const ch = text[i]!;
    if (expect === 'end') return fail(`unexpected ${JSON.stringify(ch)} after the end of the JSON value`);
    if (expect === 'colon') {
      if (ch !== ':') return fail(`expected ${EXPECTED.colon} but found ${JSON.stringify(ch)}`);
      i++;
      expect = 'value';
      continue;
    }
    if (expect === 'comma_or_close') {
      const close = open[open.length - 1] === '[' ? ']' : '}';
      if (ch === ',') expect = close === ']' ? 'value' : 'key';
      else if (ch === close) {
        open.pop();
        expect = afterValue();
      } else return fail(`expected ',' or '${close}' but found ${JSON.stringify(ch)}`);
      i++;
      continue;
    }
    if (expect === 'key' || expect === 'key_or_close') {
      if (ch === '}' && expect === 'key_or_close') {
        open.pop();
        i++;
        expect = afterValue();
        continue;
      }
      if (ch !== '"') return fail(`expected ${EXPECTED[expect]} but found ${JSON.stringify(ch)}`);
      const end = scanString(text, i);
      if (typeof end !== 'number') return end;
      i = end;
      expect = 'colon';
      continue;
    }
    // expect is 'value' or 'value_or_close'
    if (ch === ']' && expect === 'value_or_close') {
      open.pop();
      i++;
      expect = afterValue();
      continue;
    }
    if (ch === '{' || ch === '[') {
      open.push(ch);
      i++;
      expect = ch === '{' ? 'key_or_close' : 'value_or_close';
      continue;
    }
    const end =
      ch === '"'
        ? scanString(text, i)
        : ch === '-' || (ch >= '0' && ch <= '9')
          ? scanNumber(text, i)
          : scanLiteral(text, i);
    if (typeof end !== 'number') return end;
    i = end;
    expect = afterValue();
  }
}

function scanString(text: string, start: number): number | Found {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return { position: i, message: 'unescaped control character inside a string' };
    if (code === 0x5c) {
      const next = text[i + 1];
      if (next === undefined) break;
      if (next === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          if (i + 6 > text.length) break;
          return { position: i, message: 'invalid \\u escape inside a string' };
        }
        i += 6;
        continue;
      }
      if (!'"\\/bfnrt'.includes(next)) return { position: i, message: `invalid escape \\${next} inside a string` };
      i += 2;
      continue;
    }
    i++;
  }
  return { position: text.length, message: `${TRUNCATED} inside a string` };
}

const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

function scanNumber(text: string, start: number): number | Found {
  NUMBER.lastIndex = start;
  const match = NUMBER.exec(text);
  if (!match) {
    const atEnd = /^-?$/.test(text.slice(start));
    return atEnd
      ? { position: text.length, message: `${TRUNCATED} inside a number` }
      : { position: start, message: `invalid number starting ${JSON.stringify(text.slice(start, start + 10))}` };
  }
  const end = start + match[0].length;
  const next = text[end];
  if (next === '.' || next === 'e' || next === 'E') {
    return end + 1 >= text.length
      ? { position: text.length, message: `${TRUNCATED} inside a number` }
      : { position: end, message: `invalid number ${JSON.stringify(text.slice(start, end + 2))}` };
  }
  return end;
}

function scanLiteral(text: string, start: number): number | Found {
  for (const word of ['true', 'false', 'null']) {
    if (text.startsWith(word, start)) return start + word.length;
    const rest = text.slice(start);
    if (rest.length < word.length && word.startsWith(rest)) {
      return { position: text.length, message: `${TRUNCATED} inside ${word}` };
    }
  }
  return { position: start, message: `expected ${EXPECTED.value} but found ${JSON.stringify(text[start])}` };
}
