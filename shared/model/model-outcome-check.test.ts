import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/seeded-random.js';
import {
  OUTCOME_KINDS,
  fuzzModelClient,
  generateOutcome,
  outcomeOfKind,
  type OutcomeExpectation,
} from '../../test/support/model-outcomes.js';
import { checkModelOutcome, isMalformedModelOutput } from './model-outcome-check.js';
import type { ModelOutcome } from './model-response.js';
import { jsonSize } from '../json/json-measure.js';
import { MAX_ARGUMENT_BYTES, MAX_MODEL_REPLY_BYTES } from '../size-limits.js';
import { slowIt } from '../../test/support/slow-it.js';

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
  slowIt('classifies every kind of the generator as labelled, large ones included', () => {
    const next = seededRandom(101);
    for (const kind of OUTCOME_KINDS) {
      const { value, expect: expected } = outcomeOfKind(kind, next, { large: true });
      const outcome = checkModelOutcome(value);
      expect(classify(outcome), `${kind}: ${JSON.stringify(outcome).slice(0, 300)}`).toBe(expected);
      expectWellFormed(outcome);
    }
  });

  slowIt('classifies 100% of 3,000 seeded outcomes without throwing', () => {
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

  slowIt('classifies what a fuzzing ModelClient returns, turn after turn (as the model activity sees it)', async () => {
    const { client, generated } = fuzzModelClient(7, { toolNames: ['search_orders'] });
    for (let turn = 0; turn < 500; turn++) {
      const outcome = checkModelOutcome(await client.generate({ messages: [], tools: [], toolChoice: 'auto' }));
      expect(classify(outcome), generated[turn]!.kind).toBe(generated[turn]!.expect);
    }
    expect(new Set(generated.map((g) => g.kind)).size).toBeGreaterThan(50);
  });

  it('keeps a well-formed outcome as it is, dropping only what is not part of the shape', () => {
    const response = {
      text: 'hi',
      toolCalls: [{ id: 'c1', name: 'search_orders', arguments: '{"a":1}' }],
      finishReason: 'tool_calls' as const,
      usage: { inputTokens: 3, outputTokens: 4 },
    };
    expect(checkModelOutcome({ status: 'ok', response })).toStrictEqual({ status: 'ok', response });
    expect(
      checkModelOutcome({ status: 'ok', response: { ...response, extra: 1, usage: { inputTokens: 3, cost: 9 } } }),
    ).toStrictEqual({
      status: 'ok',
      response: { ...response, usage: { inputTokens: 3 } },
    });
    expect(checkModelOutcome({ status: 'ok', response: { text: 'x', finishReason: 'end_turn' } })).toStrictEqual({
      status: 'ok',
      response: { text: 'x', toolCalls: [], finishReason: 'other' },
    });
  });

  it('says which field is wrong and what a ModelClient must return', () => {
    const outcome = checkModelOutcome({
      status: 'ok',
      response: { text: '', toolCalls: [{ name: 'search_orders', arguments: { a: 1 } }] },
    });
    expect(outcome).toMatchObject({
      status: 'error',
      error: { code: 'malformed_model_output', kind: 'schema_mismatch' },
    });
    expect(outcome.status === 'error' && outcome.error.message).toMatch(
      /`response\.toolCalls\[0\]\.arguments` is an object, not JSON text .* A ModelClient resolves to/,
    );
    const getter = Object.defineProperty({}, 'status', {
      get: () => {
        throw new TypeError('boom');
      },
    });
    expect(checkModelOutcome(getter)).toMatchObject({
      error: { code: 'malformed_model_output', message: expect.stringContaining('reading `status` threw (boom)') },
    });
  });

  it('refuses a reply over maxReplyBytes with its size, and over maxToolCalls with the count', () => {
    const big = checkModelOutcome({ status: 'ok', response: { text: 'x'.repeat(3 * 1024 * 1024), toolCalls: [] } });
    expect(big.status === 'error' && big.error.message).toMatch(
      /the reply is 31458\d\d bytes of JSON \(3145728 characters of text, 0 tool call\(s\)\), over the limit of 524288 bytes/,
    );
    const calls = (n: number) => ({
      status: 'ok',
      response: { toolCalls: Array.from({ length: n }, () => ({ name: 'a', arguments: '{}' })) },
    });
    expect(checkModelOutcome(calls(1_000)).status).toBe('ok');
    const many = checkModelOutcome(calls(1_001));
    expect(many.status === 'error' && many.error.message).toContain(
      'the reply has 1001 tool calls, over the limit of 1000 per reply',
    );
    expect(
      checkModelOutcome({ status: 'ok', response: { text: 'x'.repeat(2_000) } }, { maxReplyBytes: 1_000 }).status,
    ).toBe('error');
  });

  it('cuts oversize argument text to an excerpt and marks the call, so the workflow refuses it', () => {
    const args = JSON.stringify({ doc: 'y'.repeat(MAX_ARGUMENT_BYTES) });
    const outcome = checkModelOutcome({
      status: 'ok',
      response: { text: '', toolCalls: [{ name: 'store', arguments: args }] },
    });
    expect(outcome.status).toBe('ok');
    const call = outcome.status === 'ok' ? outcome.response!.toolCalls[0]! : undefined;
    expect(call).toMatchObject({ name: 'store', oversizeBytes: args.length });
    expect(call!.arguments).toBe(args.slice(0, 500));
    expect(checkModelOutcome(outcome)).toStrictEqual(outcome);
  });

  it('copies a client-declared error with bounded text, and refuses one that is not a ToolError', () => {
    const huge = checkModelOutcome({
      status: 'error',
      error: { code: 'rate_limited', kind: 'transient', message: 'm'.repeat(100_000) },
      retryAfterMs: 1_000,
    });
    expect(huge).toMatchObject({ status: 'error', error: { code: 'rate_limited' }, retryAfterMs: 1_000 });
    expect(jsonSize(huge)).toBeLessThan(3_000);
    const thrown = checkModelOutcome({ status: 'error', error: new Error('socket hang up') });
    expect(thrown).toMatchObject({
      error: {
        code: 'malformed_model_output',
        message: expect.stringContaining('`error` is not a ToolError (socket hang up)'),
      },
    });
  });
});

describe('checkModelOutcome: what a ModelClient author is told, field by field', () => {
  const PREFIX = 'The model client returned a reply Cairn cannot use: ';
  const problem = (value: unknown, limits = {}): string => {
    const outcome = checkModelOutcome(value, limits);
    expect(isMalformedModelOutput(outcome)).toBe(true);
    const message = outcome.status === 'error' ? outcome.error.message : '';
    expect(message.startsWith(PREFIX)).toBe(true);
    return message.slice(PREFIX.length);
  };
  const ok = (response: Record<string, unknown>, limits = {}) => {
    const outcome = checkModelOutcome({ status: 'ok', response }, limits);
    expect(outcome.status, JSON.stringify(outcome)).toBe('ok');
    return outcome.status === 'ok' ? outcome.response! : undefined!;
  };
  const call = (fields: Record<string, unknown>) => ({
    status: 'ok',
    response: { toolCalls: [{ name: 'a', arguments: '{}', ...fields }] },
  });

  it('names what the outcome is when it is not an object, and what `status` is when it is neither ok nor error', () => {
    expect(problem(42)).toMatch(/^the outcome is a number, not an object\. A ModelClient resolves to/);
    expect(problem(null)).toMatch(/^the outcome is null, not an object/);
    expect(problem(undefined)).toMatch(/^the outcome is missing, not an object/);
    expect(problem([{ status: 'ok' }])).toMatch(/^the outcome is an array, not an object/);
    expect(problem({ status: 'done' })).toMatch(/^`status` is "done", not "ok" or "error"/);
    expect(problem({ status: 'd'.repeat(100) })).toContain(
      `\`status\` is "${'d'.repeat(40)}… [60 more chars cut]", not`,
    );
    expect(problem({ status: 1 })).toMatch(/^`status` is a number, not/);
    expect(problem({ status: {} })).toMatch(/^`status` is an object, not/);
    expect(problem({})).toMatch(/^`status` is missing, not/);
  });

  it('takes no response, or a null one, as a turn without a reply', () => {
    expect(checkModelOutcome({ status: 'ok' })).toStrictEqual({ status: 'ok', response: null });
    expect(checkModelOutcome({ status: 'ok', response: null })).toStrictEqual({ status: 'ok', response: null });
    // No reply has no size to refuse, however small the bound.
    expect(checkModelOutcome({ status: 'ok', response: null }, { maxReplyBytes: 1 })).toStrictEqual({
      status: 'ok',
      response: null,
    });
  });

  it('refuses a response, text, call list or call of the wrong kind, naming the field', () => {
    expect(problem({ status: 'ok', response: 'hello' })).toMatch(/^`response` is a string, not an object or null/);
    expect(problem({ status: 'ok', response: [] })).toMatch(/^`response` is an array, not an object or null/);
    expect(problem({ status: 'ok', response: { text: 5 } })).toMatch(/^`response\.text` is a number, not a string/);
    expect(problem({ status: 'ok', response: { toolCalls: {} } })).toMatch(
      /^`response\.toolCalls` is an object, not an array/,
    );
    expect(problem({ status: 'ok', response: { toolCalls: ['x'] } })).toMatch(
      /^`response\.toolCalls\[0\]` is a string, not an object/,
    );
    expect(problem(call({ name: undefined }))).toMatch(/^`response\.toolCalls\[0\]\.name` is missing, not a string/);
    expect(problem(call({ id: 5 }))).toMatch(/^`response\.toolCalls\[0\]\.id` is a number, not a string/);
  });

  it('takes absent or null text and calls as none, and an absent finish reason from whether there are calls', () => {
    expect(ok({ text: null, toolCalls: null })).toStrictEqual({ text: '', toolCalls: [], finishReason: 'stop' });
    expect(ok({ text: 'hi' })).toStrictEqual({ text: 'hi', toolCalls: [], finishReason: 'stop' });
    expect(ok({ toolCalls: [{ name: 'a', arguments: '{}' }], finishReason: null })).toStrictEqual({
      text: '',
      toolCalls: [{ name: 'a', arguments: '{}' }],
      finishReason: 'tool_calls',
    });
    expect(ok({ text: 'x', finishReason: 7 }).finishReason).toBe('other');
    expect(ok({ text: 'x', finishReason: 'length' }).finishReason).toBe('length');
  });

  it('keeps a call id only when it is a string; a null id is no id', () => {
    expect(ok({ toolCalls: [{ id: null, name: 'a', arguments: '{}' }] }).toolCalls[0]).toStrictEqual({
      name: 'a',
      arguments: '{}',
    });
    expect(ok({ toolCalls: [{ id: 'c1', name: 'a', arguments: '{}' }] }).toolCalls[0]).toStrictEqual({
      id: 'c1',
      name: 'a',
      arguments: '{}',
    });
  });

  it('bounds call names and ids at maxNameChars, the bound itself included', () => {
    expect(
      ok({ toolCalls: [{ id: 'i'.repeat(5), name: 'n'.repeat(5), arguments: '{}' }] }, { maxNameChars: 5 }).toolCalls,
    ).toHaveLength(1);
    expect(problem(call({ name: 'n'.repeat(6) }), { maxNameChars: 5 })).toMatch(
      /^`response\.toolCalls\[0\]\.name` is 6 characters long, over the limit of 5/,
    );
    expect(problem(call({ id: 'i'.repeat(6) }), { maxNameChars: 5 })).toMatch(
      /^`response\.toolCalls\[0\]\.id` is 6 characters long, over the limit of 5/,
    );
  });

  it('marks interrupted only when it is true', () => {
    expect(ok({ text: 'x', interrupted: true }).interrupted).toBe(true);
    expect(ok({ text: 'x', interrupted: 'yes' })).not.toHaveProperty('interrupted');
    expect(ok({ text: 'x', interrupted: false })).not.toHaveProperty('interrupted');
  });

  it('keeps only finite, non-negative token counts, and no usage when none is left', () => {
    expect(ok({ text: 'x', usage: { inputTokens: 0, outputTokens: 2 } }).usage).toStrictEqual({
      inputTokens: 0,
      outputTokens: 2,
    });
    expect(ok({ text: 'x', usage: { outputTokens: 2 } }).usage).toStrictEqual({ outputTokens: 2 });
    expect(ok({ text: 'x', usage: { inputTokens: 2, outputTokens: -1 } }).usage).toStrictEqual({ inputTokens: 2 });
    expect(ok({ text: 'x', usage: { inputTokens: Number.NaN, outputTokens: '3' } })).not.toHaveProperty('usage');
    expect(ok({ text: 'x', usage: { inputTokens: Number.POSITIVE_INFINITY } })).not.toHaveProperty('usage');
    expect(ok({ text: 'x', usage: 5 })).not.toHaveProperty('usage');
  });

  it("keeps a client error's retryAfterMs only when it is a finite, non-negative number", () => {
    const error = { code: 'rate_limited', kind: 'transient', message: 'slow down' };
    const retry = (retryAfterMs: unknown) => checkModelOutcome({ status: 'error', error, retryAfterMs });
    expect(retry(0)).toMatchObject({ retryAfterMs: 0 });
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, '1000', undefined])
      expect(retry(bad)).not.toHaveProperty('retryAfterMs');
    // A client's own error is never refused for size: it is bounded instead.
    expect(checkModelOutcome({ status: 'error', error }, { maxReplyBytes: 10 })).toMatchObject({
      status: 'error',
      error: { code: 'rate_limited' },
    });
    expect(isMalformedModelOutput(checkModelOutcome({ status: 'error', error }))).toBe(false);
    expect(isMalformedModelOutput(checkModelOutcome({ status: 'ok', response: null }))).toBe(false);
  });

  it('names the field whose getter threw', () => {
    const throwing = (key: string, into: Record<string, unknown> = {}) =>
      Object.defineProperty({ ...into }, key, {
        enumerable: true,
        get: () => {
          throw new Error('nope');
        },
      });
    const cases: [unknown, string][] = [
      [throwing('response', { status: 'ok' }), 'response'],
      [throwing('error', { status: 'error' }), 'error'],
      [
        throwing('retryAfterMs', { status: 'error', error: { code: 'timeout', kind: 'transient', message: 'm' } }),
        'retryAfterMs',
      ],
      [{ status: 'ok', response: throwing('text') }, 'response.text'],
      [{ status: 'ok', response: throwing('toolCalls') }, 'response.toolCalls'],
      [{ status: 'ok', response: throwing('finishReason') }, 'response.finishReason'],
      [{ status: 'ok', response: throwing('interrupted') }, 'response.interrupted'],
      [{ status: 'ok', response: throwing('usage') }, 'response.usage'],
      [{ status: 'ok', response: { usage: throwing('inputTokens') } }, 'response.usage.inputTokens'],
      [
        {
          status: 'ok',
          response: {
            toolCalls: Object.defineProperty([undefined], '0', {
              get: () => {
                throw new Error('nope');
              },
            }),
          },
        },
        'response.toolCalls[0]',
      ],
      [{ status: 'ok', response: { toolCalls: [throwing('name')] } }, 'response.toolCalls[0].name'],
      [{ status: 'ok', response: { toolCalls: [throwing('id', { name: 'a' })] } }, 'response.toolCalls[0].id'],
      [
        { status: 'ok', response: { toolCalls: [throwing('arguments', { name: 'a' })] } },
        'response.toolCalls[0].arguments',
      ],
      [
        { status: 'ok', response: { toolCalls: [throwing('oversizeBytes', { name: 'a', arguments: '{}' })] } },
        'response.toolCalls[0].oversizeBytes',
      ],
    ];
    for (const [value, where] of cases) expect(problem(value), where).toContain(`reading \`${where}\` threw (nope)`);
  });

  it('says so when the reply cannot even be inspected (a revoked proxy)', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(problem(proxy)).toMatch(/^reading it threw \(.*revoked.*\)\. A ModelClient resolves to/);
    // A refusal the check makes itself is not reported as "reading it threw".
    expect(problem({ status: 'ok', response: { text: 5 } })).not.toContain('reading it threw');
  });

  it('accepts a reply of exactly maxReplyBytes and says how to fix a larger one, without the shape lecture', () => {
    const response = { text: 'x'.repeat(100), toolCalls: [], finishReason: 'stop' };
    const size = jsonSize({ status: 'ok', response });
    expect(checkModelOutcome({ status: 'ok', response }, { maxReplyBytes: size })).toStrictEqual({
      status: 'ok',
      response,
    });
    const refused = problem({ status: 'ok', response }, { maxReplyBytes: size - 1 });
    expect(refused).toBe(
      `the reply is ${size} bytes of JSON (100 characters of text, 0 tool call(s)), over the limit of ${size - 1} bytes; ask for a shorter answer, or raise the model activity's maxReplyBytes.`,
    );
  });

  it('measures argument text in UTF-8 bytes: a call at the bound is whole, one byte more is cut and marked', () => {
    // 'é' is 2 bytes: 7 characters, 12 bytes.
    const accented = '"ééééé"';
    expect(
      ok({ toolCalls: [{ name: 'a', arguments: accented }] }, { maxArgumentBytes: 12 }).toolCalls[0],
    ).toStrictEqual({ name: 'a', arguments: accented });
    expect(
      ok({ toolCalls: [{ name: 'a', arguments: accented }] }, { maxArgumentBytes: 11 }).toolCalls[0],
    ).toStrictEqual({ name: 'a', arguments: accented, oversizeBytes: 12 });
  });

  it('keeps a mark from an earlier check when it is larger than the text, and ignores a mark that is not a finite number', () => {
    expect(ok(call({ oversizeBytes: 1e9 }).response).toolCalls[0]).toMatchObject({ oversizeBytes: 1e9 });
    for (const mark of [Number.POSITIVE_INFINITY, '99999999', 1])
      expect(ok(call({ oversizeBytes: mark }).response).toolCalls[0]).toStrictEqual({ name: 'a', arguments: '{}' });
  });

  it('cuts an oversize argument text to 500 characters, never between the halves of a surrogate pair', () => {
    const cut = (head: string) =>
      ok({ toolCalls: [{ name: 'a', arguments: head + 'z'.repeat(100) }] }, { maxArgumentBytes: 100 }).toolCalls[0]!
        .arguments;
    expect(cut('a'.repeat(600))).toBe('a'.repeat(500));
    for (const pair of ['\u{10000}', '\u{10FFFF}', '😀']) {
      expect(cut('a'.repeat(499) + pair)).toBe('a'.repeat(499));
      // A pair that ends at the cut is kept whole.
      expect(cut('a'.repeat(498) + pair)).toBe('a'.repeat(498) + pair);
    }
  });
});

describe('checkModelOutcome: a tenant_budget outcome', () => {
  const error = {
    code: 'rate_limited',
    kind: 'transient',
    message: 'The call was not sent: tenant "a" has used its daily token budget.',
  };
  const window = { tenant: 'a', window: 'day', id: '2026-11-26', limit: 'tokens', used: 120, max: 100 };
  it('keeps the spent window it names', () => {
    expect(checkModelOutcome({ status: 'error', error, failure: 'tenant_budget', tenantWindow: window })).toMatchObject(
      { failure: 'tenant_budget', tenantWindow: window },
    );
  });
  it('leaves out a window of the wrong shape, and one on another failure', () => {
    for (const bad of [
      { ...window, window: 'week' },
      { ...window, used: '120' },
      { ...window, tenant: 'x'.repeat(201) },
      'day',
      null,
    ]) {
      const checked = checkModelOutcome({ status: 'error', error, failure: 'tenant_budget', tenantWindow: bad });
      expect(checked).toMatchObject({ status: 'error', failure: 'tenant_budget' });
      expect(checked).not.toHaveProperty('tenantWindow');
    }
    expect(
      checkModelOutcome({ status: 'error', error, failure: 'rate_limited', tenantWindow: window }),
    ).not.toHaveProperty('tenantWindow');
  });
  it('keeps a window of every allowed kind, at the bounds of its texts', () => {
    for (const good of [
      { ...window, window: 'month', limit: 'cost', used: 1.5, max: 2 },
      { ...window, tenant: 'x'.repeat(200), id: 'x'.repeat(20) },
    ]) {
      const checked = checkModelOutcome({ status: 'error', error, failure: 'tenant_budget', tenantWindow: good });
      expect(checked).toMatchObject({ tenantWindow: good });
    }
  });
  it('leaves out a window with a field missing, of the wrong type or out of bounds', () => {
    const { tenant: _tenant, ...noTenant } = window;
    const { id: _id, ...noId } = window;
    for (const bad of [
      noTenant,
      noId,
      { ...window, tenant: 7 },
      { ...window, id: 20_261_126 },
      { ...window, id: 'x'.repeat(21) },
      { ...window, limit: 'dollars' },
      { ...window, used: Number.NaN },
      { ...window, max: '100' },
      { ...window, max: Number.POSITIVE_INFINITY },
    ]) {
      const checked = checkModelOutcome({ status: 'error', error, failure: 'tenant_budget', tenantWindow: bad });
      expect(checked, JSON.stringify(bad)).toMatchObject({ status: 'error', failure: 'tenant_budget' });
      expect(checked).not.toHaveProperty('tenantWindow');
    }
  });
  it('keeps the window an ok outcome is near, with or without a response, and only a well-formed one', () => {
    expect(checkModelOutcome({ status: 'ok', response: null, tenantWindowNear: window })).toStrictEqual({
      status: 'ok',
      response: null,
      tenantWindowNear: window,
    });
    expect(checkModelOutcome({ status: 'ok', tenantWindowNear: window })).toStrictEqual({
      status: 'ok',
      response: null,
      tenantWindowNear: window,
    });
    const answered = checkModelOutcome({ status: 'ok', response: { text: 'hi' }, tenantWindowNear: window });
    expect(answered).toMatchObject({ status: 'ok', response: { text: 'hi' }, tenantWindowNear: window });
    for (const response of [null, { text: 'hi' }]) {
      const checked = checkModelOutcome({ status: 'ok', response, tenantWindowNear: { ...window, used: '1' } });
      expect(checked).toMatchObject({ status: 'ok' });
      expect(checked).not.toHaveProperty('tenantWindowNear');
    }
  });
});
