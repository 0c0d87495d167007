import { describe, expect, it } from 'vitest';
import { seededRandom } from '../test/support/seeded-random.js';
import { OUTCOME_KINDS, fuzzModelClient, generateOutcome, outcomeOfKind, type OutcomeExpectation } from '../test/support/model-outcomes.js';
import { checkModelOutcome, isMalformedModelOutput } from './model-outcome-check.js';
import type { ModelOutcome } from './model-response.js';
import { jsonSize } from './json-measure.js';
import { MAX_ARGUMENT_BYTES, MAX_MODEL_REPLY_BYTES } from './size-limits.js';

function classify(outcome: ModelOutcome): OutcomeExpectation {
  if (isMalformedModelOutput(outcome)) return 'malformed';
  return outcome.status === 'ok' ? 'ok' : 'error';
}

/** What must hold for every checked outcome: plain JSON, bounded, stable under a second check. */
function expectWellFormed(outcome: ModelOutcome): void {
  expect(JSON.parse(JSON.stringify(outcome))).toStrictEqual(outcome);
  expect(jsonSize(outcome)).toBeLessThanOrEqual(MAX_MODEL_REPLY_BYTES + 200);
  expect(checkModelOutcome(outcome)).toStrictEqual(outcome);
  if (outcome.status === 'ok' && outcome.response) {
    for (const call of outcome.response.toolCalls) {
      expect(typeof call.name).toBe('string');
      expect(typeof call.arguments).toBe('string');
    }
  }
}

describe('checkModelOutcome', () => {
  it('classifies every kind of the generator as labelled, large ones included', () => {
    const next = seededRandom(101);
    for (const kind of OUTCOME_KINDS) {
      const { value, expect: expected } = outcomeOfKind(kind, next, { large: true });
      const outcome = checkModelOutcome(value);
      expect(classify(outcome), `${kind}: ${JSON.stringify(outcome).slice(0, 300)}`).toBe(expected);
      expectWellFormed(outcome);
    }
  });

  it('classifies 100% of 3,000 seeded outcomes without throwing', () => {
    const next = seededRandom(2026);
    const counts = new Map<string, number>();
    for (let i = 0; i < 3_000; i++) {
      const { kind, value, expect: expected } = generateOutcome(next, { toolNames: ['search_orders', 'issue_refund'] });
      const outcome = checkModelOutcome(value);
      expect(classify(outcome), kind).toBe(expected);
      expectWellFormed(outcome);
      counts.set(expected, (counts.get(expected) ?? 0) + 1);
    }
    expect(counts.get('ok')).toBeGreaterThan(1_000);
    expect(counts.get('malformed')).toBeGreaterThan(500);
    expect(counts.get('error')).toBeGreaterThan(50);
  });

  it('classifies what a fuzzing ModelClient returns, turn after turn (as the model activity sees it)', async () => {
    const { client, generated } = fuzzModelClient(7, { toolNames: ['search_orders'] });
    for (let turn = 0; turn < 500; turn++) {
      const outcome = checkModelOutcome(await client.generate({ messages: [], tools: [], toolChoice: 'auto' }));
      expect(classify(outcome), generated[turn]!.kind).toBe(generated[turn]!.expect);
    }
    expect(new Set(generated.map((g) => g.kind)).size).toBeGreaterThan(50);
  });

  it('keeps a well-formed outcome as it is, dropping only what is not part of the shape', () => {
    const response = { text: 'hi', toolCalls: [{ id: 'c1', name: 'search_orders', arguments: '{"a":1}' }], finishReason: 'tool_calls' as const, usage: { inputTokens: 3, outputTokens: 4 } };
    expect(checkModelOutcome({ status: 'ok', response })).toStrictEqual({ status: 'ok', response });
    expect(checkModelOutcome({ status: 'ok', response: { ...response, extra: 1, usage: { inputTokens: 3, cost: 9 } } })).toStrictEqual({
      status: 'ok',
      response: { ...response, usage: { inputTokens: 3 } },
    });
    expect(checkModelOutcome({ status: 'ok', response: { text: 'x', finishReason: 'end_turn' } })).toStrictEqual({ status: 'ok', response: { text: 'x', toolCalls: [], finishReason: 'other' } });
  });

  it('says which field is wrong and what a ModelClient must return', () => {
    const outcome = checkModelOutcome({ status: 'ok', response: { text: '', toolCalls: [{ name: 'search_orders', arguments: { a: 1 } }] } });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'malformed_model_output', kind: 'schema_mismatch' } });
    expect(outcome.status === 'error' && outcome.error.message).toMatch(/`response\.toolCalls\[0\]\.arguments` is an object, not JSON text .* A ModelClient resolves to/);
    const getter = Object.defineProperty({}, 'status', { get: () => { throw new TypeError('boom'); } });
    expect(checkModelOutcome(getter)).toMatchObject({ error: { code: 'malformed_model_output', message: expect.stringContaining('reading `status` threw (boom)') } });
  });

  it('refuses a reply over maxReplyBytes with its size, and over maxToolCalls with the count', () => {
    const big = checkModelOutcome({ status: 'ok', response: { text: 'x'.repeat(3 * 1024 * 1024), toolCalls: [] } });
    expect(big.status === 'error' && big.error.message).toMatch(/the reply is 31458\d\d bytes of JSON \(3145728 characters of text, 0 tool call\(s\)\), over the limit of 524288 bytes/);
    const calls = (n: number) => ({ status: 'ok', response: { toolCalls: Array.from({ length: n }, () => ({ name: 'a', arguments: '{}' })) } });
    expect(checkModelOutcome(calls(1_000)).status).toBe('ok');
    const many = checkModelOutcome(calls(1_001));
    expect(many.status === 'error' && many.error.message).toContain('the reply has 1001 tool calls, over the limit of 1000 per reply');
    expect(checkModelOutcome({ status: 'ok', response: { text: 'x'.repeat(2_000) } }, { maxReplyBytes: 1_000 }).status).toBe('error');
  });

  it('cuts oversize argument text to an excerpt and marks the call, so the workflow refuses it', () => {
    const args = JSON.stringify({ doc: 'y'.repeat(MAX_ARGUMENT_BYTES) });
    const outcome = checkModelOutcome({ status: 'ok', response: { text: '', toolCalls: [{ name: 'store', arguments: args }] } });
    expect(outcome.status).toBe('ok');
    const call = outcome.status === 'ok' ? outcome.response!.toolCalls[0]! : undefined;
    expect(call).toMatchObject({ name: 'store', oversizeBytes: args.length });
    expect(call!.arguments).toBe(args.slice(0, 500));
    expect(checkModelOutcome(outcome)).toStrictEqual(outcome);
  });

  it('copies a client-declared error with bounded text, and refuses one that is not a ToolError', () => {
    const huge = checkModelOutcome({ status: 'error', error: { code: 'rate_limited', kind: 'transient', message: 'm'.repeat(100_000) }, retryAfterMs: 1_000 });
    expect(huge).toMatchObject({ status: 'error', error: { code: 'rate_limited' }, retryAfterMs: 1_000 });
    expect(jsonSize(huge)).toBeLessThan(3_000);
    const thrown = checkModelOutcome({ status: 'error', error: new Error('socket hang up') });
    expect(thrown).toMatchObject({ error: { code: 'malformed_model_output', message: expect.stringContaining('`error` is not a ToolError (socket hang up)') } });
  });
});
