/**
 * checkToolCall on hostile input: arguments too deep, too large, not text at all, and seeded
 * deep/wide/odd values. Whatever comes in, the check returns a structured result that JSON can
 * hold (so the workflow can keep it, answer Queries with it and continue as new with it).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { seededRandom } from '../../test/support/seeded-random.js';
import { deepJsonText, randomJson } from '../../test/support/json-values.js';
import { defineTool } from '../tools/define-tool.js';
import { checkToolCall } from './validate-arguments.js';
import { argsHash } from '../identity/hash.js';
import { jsonSize } from '../json/json-measure.js';
import type { RawToolCall } from '../model/model-response.js';
import { MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH, MAX_FIELD_ISSUES } from '../size-limits.js';
import { slowIt } from '../../test/support/slow-it.js';

const tools = () => [
  defineTool({
    name: 'store',
    description: 'Store any JSON document.',
    input: z.object({ doc: z.json() }),
    execute: () => null,
  }),
  defineTool({
    name: 'tagged',
    description: 'Tags.',
    input: z.object({ tags: z.array(z.enum(['a', 'b'])) }).strict(),
    execute: () => null,
  }),
];
const ids = { toolCallId: '2.1' };
const check = (raw: Record<string, unknown>, toolset = tools()) =>
  checkToolCall(raw as unknown as RawToolCall, toolset, ids);
const docOfDepth = (depth: number) => `{"doc":${deepJsonText(depth - 1)}}`;

describe('checkToolCall limits', () => {
  it(`accepts arguments ${MAX_ARGUMENT_DEPTH} levels deep and refuses one level more, before the schema`, () => {
    expect(check({ name: 'store', arguments: docOfDepth(MAX_ARGUMENT_DEPTH) }).failure).toBeUndefined();
    const { failure, call } = check({ name: 'store', arguments: docOfDepth(MAX_ARGUMENT_DEPTH + 1) });
    expect(failure!.error).toMatchObject({ code: 'invalid_arguments' });
    expect(failure!.error.message).toBe(
      `The arguments for store are nested too deep: more than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays; send a flatter JSON object.`,
    );
    expect(failure!.retryHint).toMatchObject({ reason: 'invalid_arguments', restrictToTool: true });
    expect(typeof call.args).toBe('string'); // the text, never the deep value
  });

  slowIt('refuses 10,000 and 1,000,000 levels without overflowing (z.json() alone overflows at 10,000)', () => {
    expect(() => z.json().safeParse(JSON.parse(deepJsonText(10_000)))).toThrow(RangeError);
    for (const depth of [10_000, 1_000_000]) {
      const text = depth > 100_000 ? deepJsonText(depth) : docOfDepth(depth);
      const checked = check({ name: 'store', arguments: text });
      if (depth > 100_000)
        expect(checked.failure!.error.code).toBe('invalid_arguments'); // over the byte limit first
      else expect(checked.failure!.error.message).toContain('nested too deep');
      expect(() => JSON.stringify([checked.failure, checked.call])).not.toThrow();
      expect(checked.argsHash).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it('refuses arguments over MAX_ARGUMENT_BYTES with their size, keeping only an excerpt', () => {
    const text = JSON.stringify({ doc: 'ü'.repeat(MAX_ARGUMENT_BYTES / 2) }); // 2 bytes per ü
    const { failure, call, argsHash: hash } = check({ name: 'store', arguments: text });
    expect(failure!.error.message).toMatch(
      new RegExp(
        `^The arguments for store are ${MAX_ARGUMENT_BYTES + 10} bytes of JSON, over the limit of ${MAX_ARGUMENT_BYTES} bytes`,
      ),
    );
    expect((call.args as string).length).toBeLessThan(600);
    expect(failure!.retryHint!.priorInput).toBe(call.args);
    expect(hash).toBe(argsHash(text));
    expect(
      check({ name: 'store', arguments: JSON.stringify({ doc: 'x'.repeat(MAX_ARGUMENT_BYTES - 20) }) }).failure,
    ).toBeUndefined();
  });

  it('refuses a call the model activity cut (oversizeBytes) with the original size', () => {
    const { failure } = check({ name: 'store', arguments: '{"doc":"xxxx', oversizeBytes: 3_000_000 });
    expect(failure!.error).toMatchObject({ code: 'invalid_arguments' });
    expect(failure!.error.message).toContain('3000000 bytes of JSON');
  });

  it('refuses arguments that are not text, and names that are not strings, without throwing', () => {
    expect(check({ name: 'store', arguments: { doc: 1 } }).failure!.error).toMatchObject({
      code: 'malformed_arguments',
    });
    expect(check({ name: 'store', arguments: null }).failure!.error.message).toContain(
      'not JSON text (the model client sent null)',
    );
    const odd = check({ name: Symbol('x'), arguments: '{}', id: 7 });
    expect(odd.failure!.error.code).toBe('unknown_tool');
    expect(odd.call).not.toHaveProperty('providerCallId');
    expect(check({ name: 'x'.repeat(1_000_000), arguments: '{}' }).failure!.error.message.length).toBeLessThan(300);
  });

  it(`keeps at most ${MAX_FIELD_ISSUES} field issues and counts the rest`, () => {
    const text = JSON.stringify({
      tags: Array.from({ length: 10_000 }, () => 'c'),
      ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x${i}`, i])),
    });
    const { failure } = check({ name: 'tagged', arguments: text });
    expect(failure!.retryHint!.issues).toHaveLength(MAX_FIELD_ISSUES);
    expect(failure!.error.message).toMatch(/and 10097 more; fix them/);
    expect(jsonSize(failure)).toBeLessThan(64_000);
  });

  slowIt('returns a JSON-safe, bounded result for seeded deep, wide and odd arguments', () => {
    const next = seededRandom(77);
    const toolset = tools();
    for (let i = 0; i < 600; i++) {
      const shape = i % 3 === 0 ? { maxDepth: 90, maxWidth: 1 } : { maxDepth: 4, maxWidth: 8 };
      const doc = randomJson(next, shape);
      const variants = [
        JSON.stringify({ doc }),
        JSON.stringify(doc),
        JSON.stringify({ __proto__: doc, doc }).slice(0, Math.floor(next() * 200)),
      ];
      for (const text of variants) {
        const checked = check({ name: i % 2 ? 'store' : 'tagged', arguments: text }, toolset);
        expect(() => JSON.stringify([checked.failure, checked.call, checked.argsHash])).not.toThrow();
        expect(jsonSize(checked.failure ?? checked.call)).toBeLessThan(2 * MAX_ARGUMENT_BYTES);
        if (!checked.failure) expect(JSON.parse(JSON.stringify(checked.call.args))).toEqual(checked.call.args);
      }
    }
  });

  it('pollutes no prototype with a __proto__ key (zod drops it from its output; the call stays plain data)', () => {
    const checked = check({ name: 'store', arguments: '{"doc":{"__proto__":{"polluted":true},"a":1}}' });
    expect(checked.failure).toBeUndefined();
    expect(JSON.stringify(checked.call.args)).toBe('{"doc":{"a":1}}');
    expect(Object.getPrototypeOf((checked.call.args as { doc: object }).doc)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
