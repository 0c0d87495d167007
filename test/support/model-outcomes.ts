/**
 * A seeded generator of what a custom ModelClient might return: well-formed outcomes and every
 * shape-breaking one we know of (arguments that are not text, `toolCalls: null`, throwing
 * getters, revoked proxies, 1,000-call replies, megabytes of text, cycles hidden in extra keys).
 * Each comes labelled with how `checkModelOutcome` must classify it, so a fuzz test can assert
 * 100% structured outcomes. Reproducible from the PRNG it is given. Test-only.
 */
import type { ModelClient } from '../../activities/model/model-client.js';
import { seededRandom } from './seeded-random.js';
import { deepJson, randomJson } from './json-values.js';

/** How the boundary check must classify a generated value. */
export type OutcomeExpectation =
  /** A usable response (possibly null or empty: the workflow's response check judges those). */
  | 'ok'
  /** An error outcome the client itself declared (rate limited, unavailable, …). */
  | 'error'
  /** Refused at the boundary: `malformed_model_output`. */
  | 'malformed';

export interface GeneratedOutcome {
  /** Which case of the catalogue: stable names, for counting and for reproducing a failure. */
  readonly kind: string;
  readonly value: unknown;
  readonly expect: OutcomeExpectation;
}

export interface OutcomeOptions {
  /** Tool names for well-formed calls. Default `['search_orders']`. */
  readonly toolNames?: readonly string[];
  /** Include multi-megabyte and 1,000-call cases (slow to build and to ship). Default false. */
  readonly large?: boolean;
}

type Maker = (next: () => number, names: readonly string[]) => unknown;

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const call = (next: () => number, names: readonly string[], args?: string) => ({
  id: `call_${Math.floor(next() * 1e6)}`,
  name: pick(next, names),
  arguments: args ?? JSON.stringify({ customer_id: 'C-1', page: 1 + Math.floor(next() * 3) }),
});
const ok = (response: unknown) => ({ status: 'ok', response });
const reply = (extra: Record<string, unknown>) => ok({ text: '', toolCalls: [], finishReason: 'stop', ...extra });
const throwing = (target: Record<string, unknown>, key: string): Record<string, unknown> =>
  Object.defineProperty({ ...target }, key, {
    enumerable: true,
    get: () => {
      throw new TypeError(`${key} exploded`);
    },
  });
const revoked = (): object => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const cyclic = (): unknown => {
  const node: Record<string, unknown> = { a: 1 };
  node.self = node;
  return node;
};

const WELL_FORMED: Record<string, Maker> = {
  text_answer: (next) =>
    reply({ text: pick(next, ['Done.', 'Your order shipped.', '<think>hm</think>It is late.', '']) }),
  one_call: (next, names) => reply({ toolCalls: [call(next, names)], finishReason: 'tool_calls' }),
  several_calls: (next, names) =>
    reply({
      toolCalls: Array.from({ length: 2 + Math.floor(next() * 5) }, () => call(next, names)),
      finishReason: 'tool_calls',
    }),
  malformed_json_arguments: (next, names) =>
    reply({ toolCalls: [call(next, names, '{"customer_id": "C-1", "page"')], finishReason: 'tool_calls' }),
  random_json_arguments: (next, names) =>
    reply({ toolCalls: [call(next, names, JSON.stringify(randomJson(next)))], finishReason: 'tool_calls' }),
  deep_arguments_text: (next, names) =>
    reply({ toolCalls: [call(next, names, `{"doc":${'['.repeat(10_000)}${']'.repeat(10_000)}}`)] }),
  null_response: () => ok(null),
  missing_response: () => ({ status: 'ok' }),
  interrupted: () => reply({ text: 'partial…', interrupted: true, finishReason: 'length' }),
  unknown_finish_reason: () => reply({ text: 'ok', finishReason: 'end_turn' }),
  finish_reason_number: () => reply({ text: 'ok', finishReason: 7 }),
  null_tool_calls: () => ok({ text: 'hello', toolCalls: null, finishReason: 'stop' }),
  missing_text_and_calls: () => ok({ finishReason: 'stop' }),
  extra_keys: (next) =>
    ok({ text: 'hi', toolCalls: [], finishReason: 'stop', debug: randomJson(next), raw: { huge: 'x'.repeat(10_000) } }),
  extra_key_deep: () => ok({ text: 'hi', toolCalls: [], finishReason: 'stop', trace: deepJson(100_000) }),
  extra_key_cycle: () => ok({ text: 'hi', toolCalls: [], finishReason: 'stop', graph: cyclic() }),
  extra_key_throws: () => ok(throwing({ text: 'hi', toolCalls: [], finishReason: 'stop' }, 'secret')),
  bad_usage: () => reply({ text: 'hi', usage: { inputTokens: Number.NaN, outputTokens: -1 } }),
  usage_not_object: () => reply({ text: 'hi', usage: 'lots' }),
  proto_keys: () =>
    JSON.parse(
      '{"status":"ok","__proto__":{"x":1},"response":{"text":"hi","toolCalls":[],"finishReason":"stop","__proto__":{"polluted":true}}}',
    ),
  prototype_less: () =>
    Object.assign(Object.create(null), {
      status: 'ok',
      response: Object.assign(Object.create(null), { text: 'hi', toolCalls: [] }),
    }),
  class_instance: () =>
    new (class Outcome {
      status = 'ok';
      response = { text: 'from a class', toolCalls: [] };
    })(),
  to_json_response: () => ok({ text: 'real', toolCalls: [], toJSON: () => ({ text: 'fake' }) }),
  null_call_id: (next, names) => reply({ toolCalls: [{ ...call(next, names), id: null }] }),
  empty_name: () => reply({ toolCalls: [{ name: '', arguments: '{}' }] }),
  unknown_tool_name: () => reply({ toolCalls: [{ name: 'delete_everything', arguments: '{}' }] }),
  oversize_arguments: (next, names) =>
    reply({ toolCalls: [call(next, names, JSON.stringify({ doc: 'x'.repeat(300_000) }))] }),
};

const CLIENT_ERRORS: Record<string, Maker> = {
  rate_limited: () => ({
    status: 'error',
    error: { code: 'rate_limited', kind: 'transient', message: 'HTTP 429' },
    retryAfterMs: 1_500,
  }),
  unavailable: () => ({
    status: 'error',
    error: { code: 'tool_unavailable', kind: 'unavailable', message: 'HTTP 401: bad key' },
  }),
  bad_retry_after: () => ({
    status: 'error',
    error: { code: 'rate_limited', kind: 'transient', message: 'HTTP 429' },
    retryAfterMs: Number.NaN,
  }),
  huge_error_message: () => ({
    status: 'error',
    error: { code: 'internal_error', kind: 'internal', message: 'E'.repeat(1_000_000) },
  }),
};

const MALFORMED: Record<string, Maker> = {
  undefined_outcome: () => undefined,
  null_outcome: () => null,
  string_outcome: () => 'ok',
  number_outcome: () => 42,
  array_outcome: () => [{ status: 'ok' }],
  function_outcome: () => () => ({ status: 'ok' }),
  promise_outcome: () => Promise.resolve({ status: 'ok', response: null }),
  missing_status: () => ({ response: { text: 'hi', toolCalls: [] } }),
  unknown_status: () => ({ status: 'success', response: { text: 'hi', toolCalls: [] } }),
  response_string: () => ok('hello'),
  response_array: () => ok([{ text: 'hi' }]),
  text_number: () => ok({ text: 42, toolCalls: [] }),
  text_object: () => ok({ text: { value: 'hi' }, toolCalls: [] }),
  tool_calls_object: (next, names) => ok({ text: '', toolCalls: { 0: call(next, names), length: 1 } }),
  tool_calls_string: () => ok({ text: '', toolCalls: '[]' }),
  call_null: () => ok({ text: '', toolCalls: [null] }),
  // biome-ignore lint/suspicious/noSparseArray: the hole is the malformed output this case feeds the check
  call_sparse: (next, names) => ok({ text: '', toolCalls: [call(next, names), , call(next, names)] }),
  call_array: () => ok({ text: '', toolCalls: [['search_orders', '{}']] }),
  arguments_object: (next, names) =>
    ok({ text: '', toolCalls: [{ name: pick(next, names), arguments: { customer_id: 'C-1' } }] }),
  arguments_number: (next, names) => ok({ text: '', toolCalls: [{ name: pick(next, names), arguments: 12 }] }),
  arguments_null: (next, names) => ok({ text: '', toolCalls: [{ name: pick(next, names), arguments: null }] }),
  arguments_missing: (next, names) => ok({ text: '', toolCalls: [{ name: pick(next, names) }] }),
  name_number: () => ok({ text: '', toolCalls: [{ name: 7, arguments: '{}' }] }),
  name_symbol: () => ok({ text: '', toolCalls: [{ name: Symbol('search_orders'), arguments: '{}' }] }),
  name_huge: () => ok({ text: '', toolCalls: [{ name: 'n'.repeat(100_000), arguments: '{}' }] }),
  id_number: (next, names) => ok({ text: '', toolCalls: [{ id: 5, name: pick(next, names), arguments: '{}' }] }),
  getter_status: () => throwing({ response: null }, 'status'),
  getter_response: () => throwing({ status: 'ok' }, 'response'),
  getter_text: () => ok(throwing({ toolCalls: [] }, 'text')),
  getter_tool_calls: () => ok(throwing({ text: '' }, 'toolCalls')),
  getter_arguments: (next, names) => ok({ text: '', toolCalls: [throwing({ name: pick(next, names) }, 'arguments')] }),
  revoked_outcome: () => revoked(),
  revoked_response: () => ok(revoked()),
  revoked_call: () => ok({ text: '', toolCalls: [revoked()] }),
  error_not_tool_error: () => ({ status: 'error', error: new Error('provider exploded') }),
  error_string: () => ({ status: 'error', error: 'boom' }),
  error_unknown_code: () => ({ status: 'error', error: { code: 'exploded', kind: 'internal', message: 'x' } }),
  error_cyclic_cause: () => {
    const error: Record<string, unknown> = { code: 'internal_error', kind: 'internal', message: 'loop' };
    error.cause = error;
    return { status: 'error', error };
  },
  calls_over_limit: (next, names) =>
    ok({ text: '', toolCalls: Array.from({ length: 1_001 }, () => call(next, names)) }),
};

const LARGE: Record<string, [Maker, OutcomeExpectation]> = {
  thousand_calls: [
    (next, names) =>
      ok({ text: '', toolCalls: Array.from({ length: 1_000 }, () => call(next, names)), finishReason: 'tool_calls' }),
    'ok',
  ],
  ten_thousand_calls: [
    (next, names) =>
      ok({ text: '', toolCalls: Array.from({ length: 10_000 }, () => ({ name: pick(next, names), arguments: '{}' })) }),
    'malformed',
  ],
  text_3mb: [() => reply({ text: 'x'.repeat(3 * 1024 * 1024) }), 'malformed'],
  text_5mb: [() => reply({ text: 'ü'.repeat(2_600_000) }), 'malformed'],
  arguments_1mb: [
    (next, names) => reply({ toolCalls: [call(next, names, JSON.stringify({ doc: 'y'.repeat(1024 * 1024) }))] }),
    'ok',
  ],
  many_big_arguments: [
    (next, names) =>
      reply({
        toolCalls: Array.from({ length: 100 }, () => call(next, names, JSON.stringify({ doc: 'z'.repeat(200_000) }))),
      }),
    'malformed',
  ],
};

const CATALOGUE: readonly [string, Maker, OutcomeExpectation][] = [
  ...Object.entries(WELL_FORMED).map(([kind, make]) => [kind, make, 'ok'] as [string, Maker, OutcomeExpectation]),
  ...Object.entries(CLIENT_ERRORS).map(([kind, make]) => [kind, make, 'error'] as [string, Maker, OutcomeExpectation]),
  ...Object.entries(MALFORMED).map(([kind, make]) => [kind, make, 'malformed'] as [string, Maker, OutcomeExpectation]),
];
const LARGE_CATALOGUE = Object.entries(LARGE).map(
  ([kind, [make, expect]]) => [kind, make, expect] as [string, Maker, OutcomeExpectation],
);

/** Every kind the generator can produce (large ones included). */
export const OUTCOME_KINDS: readonly string[] = [...CATALOGUE, ...LARGE_CATALOGUE].map(([kind]) => kind);

/** One generated outcome: about half well-formed, the rest client errors and shape breakers. */
export function generateOutcome(next: () => number, options: OutcomeOptions = {}): GeneratedOutcome {
  const names = options.toolNames ?? ['search_orders'];
  const catalogue = options.large ? [...CATALOGUE, ...LARGE_CATALOGUE] : CATALOGUE;
  const useful = next() < 0.4;
  const [kind, make, expect] = useful
    ? pick(
        next,
        CATALOGUE.filter(([, , e]) => e === 'ok'),
      )
    : pick(next, catalogue);
  return { kind, value: make(next, names), expect };
}

/** The outcome of one kind, for a targeted test. */
export function outcomeOfKind(kind: string, next: () => number, options: OutcomeOptions = {}): GeneratedOutcome {
  const entry = [...CATALOGUE, ...LARGE_CATALOGUE].find(([k]) => k === kind);
  if (!entry) throw new Error(`No generated outcome kind "${kind}"; one of ${OUTCOME_KINDS.join(', ')}.`);
  return { kind, value: entry[1](next, options.toolNames ?? ['search_orders']), expect: entry[2] };
}

const UNRESOLVABLE = new Set(['promise_outcome', 'revoked_outcome']);

/**
 * A ModelClient that answers every call with the next generated outcome, for a fuzz run through
 * a real worker; `generated` lists what it returned, in order, to assert on. Two kinds are left
 * out because a promise cannot resolve to them: a thenable is awaited, and reading `then` of a
 * revoked proxy rejects the promise (the activity then sees a thrown error, not a value).
 */
export function fuzzModelClient(
  seed: number,
  options: OutcomeOptions = {},
): { client: ModelClient; generated: GeneratedOutcome[] } {
  const next = seededRandom(seed);
  const generated: GeneratedOutcome[] = [];
  const client: ModelClient = {
    async generate() {
      let outcome = generateOutcome(next, options);
      while (UNRESOLVABLE.has(outcome.kind)) outcome = generateOutcome(next, options);
      generated.push(outcome);
      return outcome.value as never;
    },
  };
  return { client, generated };
}

/**
 * The generator as a model client, answering runs in whatever order they ask; `generated` is what
 * it returned. A run is not ended by a plain answer before `turnsPerRun` turns, so the turns are
 * spent on outcomes, not on starting runs. Used by test/fuzz.test.ts and bench/fuzz.ts.
 */
export function fuzzModel(
  seed: number,
  options: { toolNames: readonly string[]; turnsPerRun: number },
): { client: ModelClient; generated: GeneratedOutcome[] } {
  const next = seededRandom(seed);
  const generated: GeneratedOutcome[] = [];
  const turns = new Map<string, number>();
  const ends = (o: GeneratedOutcome) => {
    const v = o.value as { status?: unknown; response?: { toolCalls?: unknown; text?: unknown } } | null;
    return (
      o.expect === 'ok' &&
      v?.status === 'ok' &&
      Array.isArray(v.response?.toolCalls) &&
      v.response.toolCalls.length === 0 &&
      v.response.text !== ''
    );
  };
  const client: ModelClient = {
    async generate({ runKey = '' }) {
      const turn = (turns.get(runKey) ?? 0) + 1;
      turns.set(runKey, turn);
      let outcome = generateOutcome(next, { toolNames: options.toolNames });
      // A thenable is awaited and a revoked proxy rejects: neither reaches the boundary as a value.
      while (
        outcome.kind === 'promise_outcome' ||
        outcome.kind === 'revoked_outcome' ||
        (turn < options.turnsPerRun && ends(outcome))
      )
        outcome = generateOutcome(next, { toolNames: options.toolNames });
      generated.push(outcome);
      return outcome.value as never;
    },
  };
  return { client, generated };
}
