import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import { checkToolCall, editRefusalMessage } from './validate-arguments.js';
import { toModelView } from '../tools/model-view.js';
import { argsHash } from '../identity/hash.js';
import { NO_TELEMETRY } from '../tools/tool-result.js';
import { MAX_ARGUMENT_BYTES, MAX_FIELD_ISSUES } from '../size-limits.js';

const STATUSES = ['placed', 'shipped', 'delivered', 'cancelled'] as const;
const tools = () => [
  defineTool({
    name: 'search_orders',
    description: 'Search a customer’s orders.',
    input: z.object({
      customer_id: z.string(),
      status: z.enum(STATUSES).optional(),
      page: z.number().int().min(1).default(1),
      items: z.array(z.object({ sku: z.string() })).optional(),
    }),
    examples: [{ customer_id: 'C-9921', status: 'shipped' }],
    execute: () => ({}),
  }),
  defineTool({ name: 'ping', description: 'Ping.', input: z.object({}), execute: () => 'pong' }),
];
const ids = { toolCallId: '3.1' };
const check = (name: string, args: string, toolset = tools()) =>
  checkToolCall({ id: 'call_x', name, arguments: args }, toolset, ids);

describe('checkToolCall', () => {
  it('accepts a valid call: args are the schema output, hash ignores key order', () => {
    const toolset = tools();
    const checked = check('search_orders', '{"status":"shipped","customer_id":"C-1"}', toolset);
    expect(checked.failure).toBeUndefined();
    expect(checked.tool).toBe(toolset[0]);
    expect(checked.call).toEqual({
      toolCallId: '3.1',
      providerCallId: 'call_x',
      name: 'search_orders',
      args: { customer_id: 'C-1', status: 'shipped', page: 1 },
    });
    expect(checked.argsHash).toBe(argsHash({ page: 1, status: 'shipped', customer_id: 'C-1' }));
    expect(check('search_orders', '{"customer_id":"C-1","status":"shipped","page":1}').argsHash).toBe(checked.argsHash);
  });

  it('treats empty arguments as {}', () => {
    const checked = check('ping', '  ');
    expect(checked.failure).toBeUndefined();
    expect(checked.call.args).toEqual({});
  });

  it('leaves providerCallId out when the provider gave no id', () => {
    expect(checkToolCall({ name: 'ping', arguments: '{}' }, tools(), ids).call).not.toHaveProperty('providerCallId');
  });

  it('refuses malformed JSON with the parse error, its position and the raw text', () => {
    const raw = '{"customer_id": "C-1", "page": 2';
    const { failure, call, argsHash: hash } = check('search_orders', raw);
    expect(failure).toMatchObject({
      status: 'error',
      name: 'search_orders',
      toolCallId: '3.1',
      telemetry: NO_TELEMETRY,
    });
    expect(failure!.error).toMatchObject({ code: 'malformed_arguments', kind: 'invalid_input' });
    expect(failure!.error.message).toContain(`at position ${raw.length} (line 1, column ${raw.length + 1})`);
    expect(failure!.retryHint).toMatchObject({
      reason: 'invalid_arguments',
      tool: 'search_orders',
      priorInput: raw,
      restrictToTool: true,
      exampleInput: { customer_id: 'C-9921', status: 'shipped' },
    });
    expect(call.args).toBe(raw);
    expect(hash).toBe(argsHash(raw));
  });

  it('refuses an unknown tool and lists the available ones', () => {
    const { failure, tool } = check('delete_orders', '{"all": true}');
    expect(tool).toBeUndefined();
    expect(failure!.error.code).toBe('unknown_tool');
    expect(failure!.retryHint).toMatchObject({
      reason: 'invalid_arguments',
      tool: 'delete_orders',
      availableTools: ['search_orders', 'ping'],
      priorInput: { all: true },
    });
    expect(failure!.retryHint).not.toHaveProperty('restrictToTool');
  });

  it('reports only-missing required fields as missing_fields', () => {
    const { failure } = check('search_orders', '{"status":"placed"}');
    expect(failure!.error).toMatchObject({ code: 'missing_fields', kind: 'invalid_input' });
    expect(failure!.error.message).toBe(
      'search_orders is missing required field(s) customer_id; call it again with them filled in.',
    );
    expect(failure!.retryHint).toEqual({
      reason: 'missing_fields',
      tool: 'search_orders',
      restrictToTool: true,
      exampleInput: { customer_id: 'C-9921', status: 'shipped' },
      priorInput: { status: 'placed' },
      missingFields: ['customer_id'],
      missingFieldLabels: ['the customer ID'],
      issues: [
        {
          path: 'customer_id',
          expected: 'a string',
          received: 'missing',
          message: '`customer_id` is required (a string) but is missing',
        },
      ],
      message: 'search_orders is missing required field(s) customer_id; call it again with them filled in.',
    });
  });

  it('labels missing fields for a person by their descriptions; the model is not shown the labels', () => {
    const findOrder = defineTool({
      name: 'find_order',
      description: 'Find an order.',
      input: z.object({
        orderId: z.string().describe('Your order number, like A-1001.'),
        shipping: z.object({ postCode: z.string() }),
      }),
      execute: () => ({}),
    });
    const { failure } = checkToolCall({ name: 'find_order', arguments: '{"shipping":{}}' }, [findOrder], ids);
    expect(failure!.retryHint).toMatchObject({
      missingFields: ['orderId', 'shipping.postCode'],
      missingFieldLabels: ['your order number, like A-1001', 'the shipping post code'],
    });
    expect(JSON.stringify(toModelView(failure!))).not.toContain('missingFieldLabels');
  });

  it('tells a reviewer what is wrong with an edit, field by field, with no words for the model', () => {
    const { failure } = check('search_orders', '{"status":"shipping"}');
    const message = editRefusalMessage(failure!);
    expect(message).toBe(
      'The edited arguments are invalid for search_orders: `customer_id` is required (a string) but is missing; `status` must be one of placed, shipped, delivered, cancelled, not "shipping". Correct the edit and submit it again.',
    );
    expect(editRefusalMessage(check('search_orders', '"C-1"').failure!)).toBe(
      'The edited arguments are invalid for search_orders: the arguments must be an object, not a string. Correct the edit and submit it again.',
    );
    const deep = check('search_orders', `${'['.repeat(200)}${']'.repeat(200)}`).failure!;
    expect(editRefusalMessage(deep)).toBe(
      'The edited arguments for search_orders are nested too deep: more than 64 levels of objects and arrays. Correct the edit and submit it again.',
    );
    for (const refused of [message, editRefusalMessage(deep)]) expect(refused).not.toMatch(/call it again|send /);
  });

  it('reports a wrong enum value as invalid_arguments naming the allowed values', () => {
    const { failure } = check('search_orders', '{"customer_id":"C-1","status":"shipping"}');
    expect(failure!.error.code).toBe('invalid_arguments');
    expect(failure!.retryHint!.issues).toEqual([
      expect.objectContaining({
        path: 'status',
        expected: 'one of placed, shipped, delivered, cancelled',
        allowed: [...STATUSES],
        received: '"shipping"',
      }),
    ]);
    expect(failure!.retryHint!.message).toBe(
      'The arguments for search_orders are invalid: `status` must be one of placed, shipped, delivered, cancelled, not "shipping"; fix them and call it again.',
    );
    expect(failure!.retryHint).not.toHaveProperty('missingFields');
  });

  it('keeps missingFields when missing and wrong fields come together, with nested paths', () => {
    const { failure } = check('search_orders', '{"items":[{"sku":1}],"page":0}');
    expect(failure!.error.code).toBe('invalid_arguments');
    expect(failure!.retryHint!.missingFields).toEqual(['customer_id']);
    expect(failure!.retryHint!.issues!.map((i) => i.path)).toEqual(['customer_id', 'page', 'items.0.sku']);
  });

  it('refuses arguments that are JSON but not an object', () => {
    const { failure } = check('search_orders', '[1,2]');
    expect(failure!.error.code).toBe('invalid_arguments');
    expect(failure!.retryHint!.issues![0]).toMatchObject({ path: '', expected: 'an object', received: 'an array' });
  });

  it('turns a throwing input schema into internal_error instead of crashing the workflow', () => {
    const bad = defineTool({
      name: 'bad',
      description: 'Bad.',
      input: z.object({
        a: z.string().transform(() => {
          throw new Error('oops');
        }),
      }),
      execute: () => null,
    });
    const { failure } = checkToolCall({ name: 'bad', arguments: '{"a":"x"}' }, [bad], ids);
    expect(failure!.error).toMatchObject({ code: 'internal_error', message: 'The input schema of bad threw: oops' });
  });

  it('refuses schema output that is not JSON', () => {
    const dated = defineTool({
      name: 'dated',
      description: 'Dated.',
      input: z.object({ n: z.number().transform((n) => BigInt(n)) }),
      execute: () => null,
    });
    const { failure } = checkToolCall({ name: 'dated', arguments: '{"n":1}' }, [dated], ids);
    expect(failure!.error.code).toBe('internal_error');
    expect(failure!.error.message).toContain('BigInt 1n at `n` is not JSON');
  });

  it('is deterministic', () => {
    const a = check('search_orders', '{"status":"x"}');
    const b = check('search_orders', '{"status":"x"}');
    expect(JSON.stringify(a.failure)).toBe(JSON.stringify(b.failure));
  });
});

describe('checkToolCall: what a refusal keeps', () => {
  it('names no tool when the name is not text, and says so when there are no tools at all', () => {
    const result = checkToolCall({ name: 42 as never, arguments: '{}' }, tools(), ids);
    expect(result.call.name).toBe('');
    expect(result.failure!.error.message).toBe('There is no tool named 42; call one of: search_orders, ping.');
    expect(check('ping', '{}', []).failure!.error.message).toBe('There is no tool named "ping"; call one of: (none).');
  });

  it('keeps the tool, shows non-text arguments as null, and tells the model how to resend them', () => {
    const toolset = tools();
    const result = checkToolCall({ name: 'ping', arguments: { a: 1 } as never }, toolset, ids);
    expect(result.tool).toBe(toolset[1]);
    expect(result.call.args).toBeNull();
    expect(result.failure!.error.code).toBe('malformed_arguments');
    expect(result.failure!.retryHint).toMatchObject({
      restrictToTool: true,
      priorInput: null,
      message: result.failure!.error.message,
    });
  });

  it('hashes the parsed arguments of a refused call, not their spelling', () => {
    const a = check('search_orders', '{"status":"placed","page":2}');
    const b = check('search_orders', '{ "page": 2, "status": "placed" }');
    expect(a.failure!.error.code).toBe('missing_fields');
    expect(a.argsHash).toBe(b.argsHash);
    expect(a.argsHash).toBe(argsHash({ status: 'placed', page: 2 }));
  });

  it('names every missing field, and keeps at most MAX_FIELD_ISSUES of them', () => {
    const two = defineTool({
      name: 'two',
      description: 'Two fields.',
      input: z.object({ a: z.string(), b: z.string() }),
      execute: () => 1,
    });
    expect(checkToolCall({ name: 'two', arguments: '{}' }, [two], ids).failure!.error.message).toBe(
      'two is missing required field(s) a, b; call it again with them filled in.',
    );
    const keys = Array.from({ length: MAX_FIELD_ISSUES + 10 }, (_, i) => `f${i}`);
    const many = defineTool({
      name: 'many',
      description: 'Many fields.',
      input: z.object(Object.fromEntries(keys.map((key) => [key, z.string()]))),
      execute: () => 1,
    });
    expect(
      checkToolCall({ name: 'many', arguments: '{}' }, [many], ids).failure!.retryHint!.missingFields,
    ).toStrictEqual(keys.slice(0, MAX_FIELD_ISSUES));
  });

  it('takes arguments of exactly MAX_ARGUMENT_BYTES, and refuses one byte more', () => {
    const text = (bytes: number) => `{"customer_id":"${'x'.repeat(bytes - '{"customer_id":""}'.length)}"}`;
    expect(check('search_orders', text(MAX_ARGUMENT_BYTES)).failure).toBeUndefined();
    expect(check('search_orders', text(MAX_ARGUMENT_BYTES + 1)).failure!.error.code).toBe('invalid_arguments');
  });
});
