import { seededRandom } from '../../test/support/seeded-random.js';
import { describe, expect, it } from 'vitest';
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
  defaultFailureConverter,
  defaultPayloadConverter,
} from '@temporalio/common';
import { FAILURES, type ToolErrorCode } from './failure-taxonomy.js';
import {
  MAX_CAUSE_DEPTH,
  errorChain,
  fromError,
  isToolError,
  toolError,
  truncateChain,
  type ToolError,
} from './tool-error.js';

const random = seededRandom;

type LinkKind = 'error' | 'type_error' | 'aggregate' | 'app_cairn' | 'app_other' | 'timeout' | 'activity' | 'cancelled';
type LeafKind = 'string' | 'number' | 'object' | 'tool_error';
interface Case {
  links: LinkKind[];
  leaf?: LeafKind;
  /** Each walked link's own code (a timeout, a Cairn-typed failure, embedded ToolError data), in order. */
  ownCodes: (ToolErrorCode | undefined)[];
  thrown: unknown;
}

const LINK_KINDS: LinkKind[] = [
  'error',
  'type_error',
  'aggregate',
  'app_cairn',
  'app_other',
  'timeout',
  'activity',
  'cancelled',
];
const LEAF_KINDS: LeafKind[] = ['string', 'number', 'object', 'tool_error'];
const CAIRN_TYPES: ToolErrorCode[] = ['rate_limited', 'tool_unavailable', 'semantic_error', 'internal_error'];

function generate(seed: number): Case {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const message = (): string =>
    pick([
      '',
      '   ',
      'boom',
      'ünïcödé 😀',
      'lone \ud800 surrogate',
      'x'.repeat(5_000),
      'line\nbreak',
      `msg ${Math.floor(next() * 1e6)}`,
    ]);
  const links = Array.from({ length: Math.floor(next() * 16) }, () => pick(LINK_KINDS));
  const leaf = links.length === 0 || next() < 0.5 ? pick(LEAF_KINDS) : undefined;
  const cycleTo =
    leaf === undefined && links.length > 0 && next() < 0.3 ? Math.floor(next() * links.length) : undefined;
  const ownCodes: (ToolErrorCode | undefined)[] = [];

  const leafCode = pick(CAIRN_TYPES);
  let inner: unknown =
    leaf === 'string'
      ? message()
      : leaf === 'number'
        ? Math.floor(next() * 100)
        : leaf === 'object'
          ? { status: 500, body: message() }
          : leaf === 'tool_error'
            ? toolError(leafCode, message() || 'embedded')
            : undefined;
  if (leaf) ownCodes.push(leaf === 'tool_error' ? leafCode : undefined);
  const built: Error[] = [];
  for (let i = links.length - 1; i >= 0; i--) {
    const cause = inner instanceof Error ? inner : undefined;
    const type = pick(CAIRN_TYPES);
    let value: Error;
    switch (links[i]!) {
      case 'error':
        value = new Error(message(), { cause: inner });
        break;
      case 'type_error':
        value = new TypeError(message(), { cause: inner });
        break;
      case 'aggregate':
        value = new AggregateError([inner, 'second', new Error('third')], message());
        break;
      case 'app_cairn':
        value = ApplicationFailure.create({ message: message(), type, cause });
        break;
      case 'app_other':
        value = ApplicationFailure.create({ message: message(), type: 'TypeError', cause });
        break;
      case 'timeout':
        value = new TimeoutFailure(message(), undefined, TimeoutType.START_TO_CLOSE);
        break;
      case 'activity':
        value = new ActivityFailure(message(), 'runTool', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'w', cause);
        break;
      case 'cancelled':
        value = new CancelledFailure(message(), [], cause);
        break;
    }
    ownCodes.unshift(links[i] === 'timeout' ? 'timeout' : links[i] === 'app_cairn' ? type : undefined);
    // Causes of any kind (strings, plain objects, ToolError data) hang off every link the same way.
    if (links[i] !== 'aggregate')
      Object.defineProperty(value, 'cause', { value: inner, writable: true, configurable: true });
    built.unshift(value);
    inner = value;
  }
  if (cycleTo !== undefined) (built[built.length - 1] as { cause?: unknown }).cause = built[cycleTo];
  return { links, ...(leaf ? { leaf } : {}), ownCodes, thrown: inner };
}

/** The rule, computed from what was generated: timeout anywhere kept, else the first own code, else the fallback. */
function expectedCode(c: Case, fallback: ToolErrorCode): ToolErrorCode {
  const kept = c.ownCodes.slice(0, MAX_CAUSE_DEPTH);
  if (kept.includes('timeout')) return 'timeout';
  return kept.find((code) => code !== undefined) ?? fallback;
}

describe('fromError: generated chains (seeded)', () => {
  const SEEDS = Array.from({ length: 400 }, (_, i) => i + 1);

  it('survives a JSON round trip exactly, and validates with isToolError', () => {
    for (const seed of SEEDS) {
      const error = fromError(generate(seed).thrown);
      expect(JSON.parse(JSON.stringify(error)), `seed ${seed}`).toStrictEqual(error);
      expect(isToolError(error), `seed ${seed}`).toBe(true);
    }
  });

  it('gives every link a non-empty, bounded message and a kind matching its code', () => {
    for (const seed of SEEDS) {
      for (const link of errorChain(fromError(generate(seed).thrown))) {
        expect(link.message.trim().length, `seed ${seed}`).toBeGreaterThan(0);
        expect(link.message.length, `seed ${seed}`).toBeLessThanOrEqual(2_100);
        expect(link.kind, `seed ${seed}`).toBe(FAILURES[link.code].kind);
      }
    }
  });

  it('is finite under cycles and cuts deep chains with a marker that counts the cut links', () => {
    for (const seed of SEEDS) {
      const c = generate(seed);
      const walked = c.links.length + (c.leaf ? 1 : 0);
      const chain = errorChain(fromError(c.thrown));
      if (walked <= MAX_CAUSE_DEPTH) {
        expect(chain.length, `seed ${seed}`).toBe(walked);
      } else {
        expect(chain.length, `seed ${seed}`).toBe(MAX_CAUSE_DEPTH + 1);
        expect(chain.at(-1)!.message, `seed ${seed}`).toBe(`… ${walked - MAX_CAUSE_DEPTH} more cause(s) cut`);
      }
    }
  });

  it('picks the code by the rule: timeout anywhere, else the first Cairn-typed failure, else the given code', () => {
    for (const seed of SEEDS) {
      const c = generate(seed);
      expect(fromError(c.thrown, 'tool_unavailable').code, `seed ${seed}`).toBe(expectedCode(c, 'tool_unavailable'));
    }
  });

  it('is deterministic', () => {
    for (const seed of SEEDS.slice(0, 50)) {
      const c = generate(seed);
      expect(fromError(c.thrown)).toStrictEqual(fromError(c.thrown));
    }
  });
});

describe('fromError: specific shapes', () => {
  it('follows Error.cause and keeps names', () => {
    const error = fromError(new Error('outer', { cause: new RangeError('inner') }));
    expect(errorChain(error).map((l) => [l.name, l.message])).toEqual([
      ['Error', 'outer'],
      ['RangeError', 'inner'],
    ]);
  });

  it('stops at a cycle through Error.cause, including a self-cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(errorChain(fromError(a)).map((l) => l.message)).toEqual(['a', 'b']);
    const self = new Error('self');
    (self as { cause?: unknown }).cause = self;
    expect(errorChain(fromError(self))).toHaveLength(1);
  });

  it('cuts a long chain to MAX_CAUSE_DEPTH links plus a marker', () => {
    let error: Error = new Error('root');
    for (let i = 1; i < 20; i++) error = new Error(`level ${i}`, { cause: error });
    const chain = errorChain(fromError(error));
    expect(chain).toHaveLength(MAX_CAUSE_DEPTH + 1);
    expect(chain[0]!.message).toBe('level 19');
    expect(chain.at(-1)).toEqual({
      code: 'internal_error',
      kind: 'internal',
      message: `… ${20 - MAX_CAUSE_DEPTH} more cause(s) cut`,
    });
  });

  it('summarises every AggregateError member and chains the first', () => {
    const errors = [
      new Error('disk full'),
      'plain string',
      { message: 'object with message' },
      4,
      new Error('e5'),
      new Error('e6'),
      new Error('e7'),
    ];
    const chain = errorChain(fromError(new AggregateError(errors, 'all writes failed')));
    expect(chain[0]!.message).toBe(
      'all writes failed (7 error(s): disk full; plain string; object with message; 4; e5; … 2 more)',
    );
    expect(chain[1]!.message).toBe('disk full');
  });

  it('chains an AggregateError cause in preference to its first member', () => {
    const chain = errorChain(
      fromError(new AggregateError([new Error('member')], 'agg', { cause: new Error('the cause') })),
    );
    expect(chain[1]!.message).toBe('the cause');
  });

  it.each([
    ['a string', 'it broke', 'it broke'],
    ['an empty string', '', 'an empty string was thrown'],
    ['a number', 42, '42 was thrown'],
    ['null', null, 'null was thrown'],
    ['undefined', undefined, 'undefined was thrown'],
    ['a bigint', 10n, '10n was thrown'],
    ['a plain object', { status: 503 }, 'non-error object thrown: {"status":503}'],
    ['an object with a message', { message: 'quota exceeded', name: 'QuotaError' }, 'quota exceeded'],
    ['an Error without a message', new TypeError(''), 'TypeError'],
  ])('describes %s thrown', (_label, thrown, message) => {
    const error = fromError(thrown);
    expect(error.message).toBe(message);
    expect(error.code).toBe('internal_error');
    expect(JSON.parse(JSON.stringify(error))).toStrictEqual(error);
  });

  it('survives a throwing getter', () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('no');
        },
      },
    );
    expect(fromError(hostile).message).toMatch(/non-error object thrown/);
  });

  it('maps an activity timeout to timeout, even under a Cairn-typed failure', () => {
    const timeout = new TimeoutFailure(undefined, undefined, TimeoutType.START_TO_CLOSE);
    const wrapped = ApplicationFailure.create({ message: 'rate limited first', type: 'rate_limited', cause: timeout });
    const error = fromError(
      new ActivityFailure('Activity task failed', 'runTool', '1', RetryState.TIMEOUT, 'w', wrapped),
    );
    expect(error.code).toBe('timeout');
    expect(error.kind).toBe('transient');
    expect(errorChain(error).at(-1)).toMatchObject({
      code: 'timeout',
      name: 'TimeoutFailure',
      message: 'timed out (START_TO_CLOSE)',
    });
  });

  it('recognises a TimeoutFailure by shape alone (another module copy)', () => {
    const lookalike = { name: 'TimeoutFailure', message: '', timeoutType: 'HEARTBEAT' };
    expect(fromError({ name: 'ActivityFailure', message: 'failed', cause: lookalike }).code).toBe('timeout');
  });

  it('takes the code of the first ApplicationFailure typed with a Cairn code', () => {
    const app = ApplicationFailure.create({ message: 'slow down', type: 'rate_limited', cause: new Error('429') });
    const error = fromError(
      new ActivityFailure('Activity task failed', 'runTool', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'w', app),
    );
    expect(error.code).toBe('rate_limited');
    expect(errorChain(error).map((l) => l.name)).toEqual(['ActivityFailure', 'rate_limited', 'Error']);
    expect(error.message).toBe('Activity task failed (runTool, MAXIMUM_ATTEMPTS_REACHED)');
  });

  it('uses the given code when no type is Cairn’s, and keeps CancelledFailure named', () => {
    expect(fromError(ApplicationFailure.create({ message: 'x', type: 'TypeError' }), 'tool_unavailable').code).toBe(
      'tool_unavailable',
    );
    expect(fromError(new CancelledFailure('cancelled'))).toMatchObject({
      code: 'internal_error',
      name: 'CancelledFailure',
    });
  });

  it('chains a ToolError carried in ApplicationFailure details', () => {
    const carried = toolError('tool_unavailable', 'carrier API down');
    const chain = errorChain(
      fromError(ApplicationFailure.create({ message: 'wrapped', type: 'tool_unavailable', details: [carried] })),
    );
    expect(chain[1]).toEqual(carried);
  });

  it('reads a failure as the workflow receives it, after Temporal’s failure converter', () => {
    const thrown = ApplicationFailure.create({
      message: 'db gone',
      type: 'internal_error',
      cause: new TypeError('rows is undefined'),
    });
    const proto = defaultFailureConverter.errorToFailure(thrown, defaultPayloadConverter);
    const received = defaultFailureConverter.failureToError(proto, defaultPayloadConverter);
    const chain = errorChain(fromError(received, 'tool_unavailable'));
    expect(chain.map((l) => [l.code, l.message])).toEqual([
      ['internal_error', 'db gone'],
      ['internal_error', 'rows is undefined'],
    ]);
  });

  it('returns ToolError data unchanged, only bounded', () => {
    const data = toolError('semantic_error', 'wrong meaning', toolError('internal_error', 'why'));
    expect(fromError(data)).toStrictEqual(data);
    expect(fromError(JSON.parse(JSON.stringify(data)))).toStrictEqual(data);
    let deep = toolError('timeout', 'root');
    for (let i = 0; i < 12; i++) deep = { ...toolError('internal_error', `level ${i}`), cause: deep };
    expect(fromError(deep)).toStrictEqual(truncateChain(deep, MAX_CAUSE_DEPTH));
    expect(fromError(toolError('timeout', 'y'.repeat(5_000))).message.length).toBeLessThan(2_100);
  });
});

describe('toolError: a wrapped chain stays bounded', () => {
  it('wrapping keeps at most MAX_CAUSE_DEPTH real links and ends with a marker, however often it is wrapped', () => {
    let chain = fromError(
      Array.from({ length: 20 }, (_, i) => new Error(`level ${i}`)).reduceRight<Error | undefined>(
        (cause, e) => (cause ? Object.assign(e, { cause }) : e),
        undefined,
      ),
    );
    for (let wraps = 1; wraps <= 30; wraps++) {
      chain = toolError('tool_unavailable', `wrap ${wraps}`, chain);
      const links = errorChain(chain);
      expect(links).toHaveLength(MAX_CAUSE_DEPTH + 1);
      expect(links[0]!.message).toBe(`wrap ${wraps}`);
      expect(links.at(-1)!.message).toMatch(/^… \d+ more cause\(s\) cut$/);
    }
  });

  it('a short cause is kept whole: outer link plus every link of the cause', () => {
    const cause = toolError('timeout', 'slow', toolError('internal_error', 'why'));
    expect(errorChain(toolError('tool_unavailable', 'down', cause)).map((l) => l.message)).toEqual([
      'down',
      'slow',
      'why',
    ]);
  });
});

describe('isToolError', () => {
  it('accepts a chain read back from JSON', () => {
    const valid: ToolError = toolError('timeout', 'slow', toolError('internal_error', 'cause'));
    expect(isToolError(JSON.parse(JSON.stringify(valid)))).toBe(true);
    expect(isToolError(truncateChain(valid, 1))).toBe(true);
  });

  it.each([
    ['null', null],
    ['a string', 'timeout'],
    ['an Error instance', Object.assign(new Error('x'), { code: 'timeout', kind: 'transient' })],
    ['an unknown code', { code: 'nope', kind: 'internal', message: 'm' }],
    ['an unknown kind', { code: 'timeout', kind: 'weird', message: 'm' }],
    ['an empty message', { code: 'timeout', kind: 'transient', message: '' }],
    ['a non-string name', { code: 'timeout', kind: 'transient', message: 'm', name: 3 }],
    ['an extra key', { code: 'timeout', kind: 'transient', message: 'm', stack: 'at …' }],
    ['an undefined-valued key', { code: 'timeout', kind: 'transient', message: 'm', name: undefined }],
    ['a bad cause', { code: 'timeout', kind: 'transient', message: 'm', cause: { code: 'timeout' } }],
  ])('rejects %s', (_label, value) => {
    expect(isToolError(value)).toBe(false);
  });

  it('rejects a cyclic chain instead of looping', () => {
    const a: Record<string, unknown> = { code: 'timeout', kind: 'transient', message: 'a' };
    a.cause = a;
    expect(isToolError(a)).toBe(false);
  });
});

describe('fromError: what each kind of failure says', () => {
  const messages = (thrown: unknown) => errorChain(fromError(thrown)).map((link) => link.message);

  it('names the timeout type once, and takes a TimeoutFailure without one as a timeout', () => {
    expect(fromError({ name: 'TimeoutFailure', message: 'slow' })).toMatchObject({ code: 'timeout', message: 'slow' });
    const named = { name: 'TimeoutFailure', message: 'START_TO_CLOSE passed', timeoutType: 'START_TO_CLOSE' };
    expect(fromError(named).message).toBe('START_TO_CLOSE passed');
  });

  it('names an untyped ApplicationFailure as such, and chains its cause before a ToolError in its details', () => {
    expect(fromError({ name: 'ApplicationFailure', message: 'x' }).name).toBe('ApplicationFailure');
    const carried = toolError('tool_unavailable', 'from details');
    const both = { name: 'ApplicationFailure', message: 'x', cause: new Error('the cause'), details: [carried] };
    expect(messages(both)).toStrictEqual(['x', 'the cause']);
  });

  it('adds the activity facts it has to an ActivityFailure, and says what failed without a message', () => {
    expect(fromError({ name: 'ActivityFailure', message: 'failed', activityType: 'runTool' }).message).toBe(
      'failed (runTool)',
    );
    expect(fromError({ name: 'ActivityFailure', message: 'failed' }).message).toBe('failed');
    expect(fromError({ name: 'ActivityFailure', message: '', retryState: 'TIMEOUT' }).message).toBe(
      'activity failed (TIMEOUT)',
    );
  });

  it('lists five AggregateError members without a "more", and says "several errors" without a message', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map((m) => new Error(m));
    expect(fromError(new AggregateError(five, 'all failed')).message).toBe('all failed (5 error(s): a; b; c; d; e)');
    expect(fromError(new AggregateError([new Error('only')])).message).toBe('several errors (1 error(s): only)');
  });

  it('keeps the message of an object without a name, and trims names and messages', () => {
    expect(fromError({ message: 'quota exceeded' }).message).toBe('quota exceeded');
    expect(fromError({ name: ' QuotaError ', message: 'over' }).name).toBe('QuotaError');
    expect(toolError('timeout', '  slow  ').message).toBe('slow');
    expect(toolError('timeout', '   ').message).toBe('timeout');
  });

  it('ends a chain at a null cause', () => {
    expect(messages(new Error('x', { cause: null }))).toStrictEqual(['x']);
  });

  it('counts the links of an embedded ToolError cut past MAX_CAUSE_DEPTH', () => {
    let deep = toolError('timeout', 'root');
    for (let i = 0; i < 11; i++) deep = { ...toolError('internal_error', `level ${i}`), cause: deep };
    const chain = errorChain(fromError(new Error('outer', { cause: deep })));
    expect(chain).toHaveLength(MAX_CAUSE_DEPTH + 1);
    expect(chain.slice(0, 2).map((link) => link.message)).toStrictEqual(['outer', 'level 10']);
    expect(chain.at(-1)!.message).toBe(`… ${1 + 12 - MAX_CAUSE_DEPTH} more cause(s) cut`);
  });

  it('stops counting the cut links of an endless chain at 1,000', () => {
    const endless = (): object => ({
      message: 'again',
      get cause() {
        return endless();
      },
    });
    expect(errorChain(fromError(endless())).at(-1)!.message).toBe('… 1000 more cause(s) cut');
  });
});

describe('truncateChain and isToolError at their edges', () => {
  it('keeps a chain exactly as deep as allowed as it is', () => {
    const chain = toolError('timeout', 'slow', toolError('internal_error', 'why'));
    expect(truncateChain(chain, 2)).toBe(chain);
  });

  it('accepts links without a prototype, and refuses a message that is not a string or a chain it cannot read', () => {
    const bare = Object.assign(Object.create(null) as object, { code: 'timeout', kind: 'transient', message: 'm' });
    expect(isToolError(bare)).toBe(true);
    expect(isToolError({ code: 'timeout', kind: 'transient', message: 5 })).toBe(false);
    const unreadable = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no');
        },
      },
    );
    expect(isToolError(unreadable)).toBe(false);
  });
});
