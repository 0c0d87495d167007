import { describe, expect, it } from 'vitest';
import { mcpServer } from './mcp-server.js';
import { mcpToolName, mcpToolOf, mcpTools } from './mcp-tools.js';
import { checkToolCall } from '../guards/validate-arguments.js';
import type { McpListing } from './mcp-server.js';

// Built inside each test, not when the file loads: Stryker turns a mutant on only once tests start.
const server = () =>
  mcpServer({
    name: 'everything',
    command: 'node',
    args: ['server.js'],
    exclude: ['get-env'],
    tools: { 'get-structured-content': { approval: 'always' } },
  });
const listing: McpListing = {
  server: 'everything',
  tools: [
    {
      name: 'get-sum',
      description: 'Adds two numbers',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'get-structured-content',
      description: 'Weather',
      inputSchema: {
        type: 'object',
        properties: { location: { type: 'string', enum: ['New York', 'Chicago'] } },
        required: ['location'],
      },
    },
    { name: 'get-env', description: 'Env', inputSchema: { type: 'object', properties: {} } },
    {
      name: 'delete_all',
      description: '',
      inputSchema: { type: 'object', properties: {} },
      annotations: { destructiveHint: true },
    },
    {
      name: 'weird',
      description: 'A schema zod cannot read',
      inputSchema: { type: 'object', properties: { x: { $ref: '#/nowhere' } } },
    },
  ],
};
const tools = () => mcpTools(server(), listing);
const byName = (name: string) => tools().find((t) => t.name === name)!;
const call = (name: string, args: unknown) =>
  checkToolCall({ name, arguments: JSON.stringify(args) }, tools(), { toolCallId: '1.1' });

describe('mcpTools', () => {
  it('names tools <prefix><tool> in snake_case, applies exclude, and keeps the server schema for the model', () => {
    expect(tools().map((t) => t.name)).toEqual([
      'everything_get_sum',
      'everything_get_structured_content',
      'everything_delete_all',
      'everything_weird',
    ]);
    expect(mcpToolName('', 'getTinyImage')).toBe('get_tiny_image');
    expect(mcpToolName('x_', '--')).toBe('x');
    expect(byName('everything_get_sum').spec.args_schema).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(mcpToolOf(byName('everything_get_sum'))).toEqual({ server: 'everything', tool: 'get-sum' });
  });

  it('takes side effects and approval from annotations, overrides first', () => {
    expect(byName('everything_get_sum')).toMatchObject({ sideEffects: 'none', approval: 'never' });
    expect(byName('everything_get_structured_content')).toMatchObject({ sideEffects: 'once', approval: 'always' });
    expect(byName('everything_delete_all')).toMatchObject({ sideEffects: 'once', approval: 'always' });
    expect(byName('everything_delete_all').description).toMatch(/delete_all \(a tool of the MCP server everything\)/);
  });

  it('checks calls against the JSON Schema with the hints of a zod tool: missing fields, expected vs received, enum values, an example', () => {
    const missing = call('everything_get_sum', { a: 1 });
    expect(missing.failure?.error.code).toBe('missing_fields');
    expect(missing.failure?.retryHint).toMatchObject({
      missingFields: ['b'],
      exampleInput: { a: 0, b: 0 },
      restrictToTool: true,
    });
    const wrong = call('everything_get_sum', { a: 'one', b: 2 });
    expect(wrong.failure?.error.code).toBe('invalid_arguments');
    expect(wrong.failure?.error.message).toMatch(/a.*number.*string/);
    const badEnum = call('everything_get_structured_content', { location: 'Paris' });
    expect(badEnum.failure?.error.message).toMatch(/New York.*Chicago/);
    expect(badEnum.failure?.retryHint?.exampleInput).toEqual({ location: 'New York' });
    expect(call('everything_get_sum', { a: 1, b: 2 })).toMatchObject({ call: { args: { a: 1, b: 2 } } });
  });

  it('a schema zod cannot read still takes any JSON object, and a failed listing gives no tools', () => {
    expect(call('everything_weird', { x: 1 }).failure).toBeUndefined();
    expect(mcpTools(server(), { server: 'everything', error: 'spawn ENOENT' })).toEqual([]);
  });

  it('leaves out what a malformed listing holds instead of throwing (a listing may come from a forged run input)', () => {
    const garbage = [
      null,
      42,
      { name: 42, inputSchema: {} },
      { name: 'no_schema' },
      { name: 'str_schema', inputSchema: 'x' },
      { name: 'ok', inputSchema: { type: 'object' } },
    ];
    expect(mcpTools(server(), { server: 'everything', tools: garbage } as never).map((t) => t.name)).toEqual([
      'everything_ok',
    ]);
    expect(mcpTools(server(), { server: 'everything', tools: 'nope' } as never)).toEqual([]);
    const deep = { type: 'object', properties: { x: JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`) } };
    expect(
      mcpTools(server(), { server: 'everything', tools: [{ name: 'deep', inputSchema: deep }] }).map((t) => t.name),
    ).toEqual(['everything_deep']);
  });

  it('refuses a server definition without exactly one way to reach it', () => {
    expect(() => mcpServer({ name: 'x' })).toThrow(/exactly one of/);
    expect(() => mcpServer({ name: 'Bad-Name', command: 'x' })).toThrow(/snake_case/);
  });

  it('has no execute in the workflow: a call there is a bug', () => {
    expect(() => byName('everything_get_sum').execute({ a: 1, b: 2 }, {} as never)).toThrow(/only a worker reaches/);
  });
});

describe('mcpTools: what the model and the run get of each listed tool', () => {
  const one = (info: Record<string, unknown>, config: Partial<Parameters<typeof mcpServer>[0]> = {}) =>
    mcpTools(mcpServer({ name: 'srv', command: 'node', ...config }), {
      server: 'srv',
      tools: [{ inputSchema: { type: 'object', properties: {} }, ...info }],
    } as unknown as McpListing)[0];

  it('names: prefix and tool in snake_case, camelCase split, cut to 64, empty when nothing is left', () => {
    expect(mcpToolName('srv_', 'getUserByID')).toBe('srv_get_user_by_id');
    expect(mcpToolName('', '--9lives--')).toBe('lives');
    expect(mcpToolName('', '42')).toBe('');
    expect(mcpToolName('', `${'a'.repeat(63)}_b`)).toBe('a'.repeat(63));
    expect(mcpToolName('', 'a'.repeat(70))).toHaveLength(64);
    expect(mcpToolName('', 'Already__fine__')).toBe('already_fine');
  });

  it('include keeps only the named tools; a name that collides or comes out empty is left out', () => {
    const infos = ['a', 'b', 'A', '%%'].map((name) => ({ name, inputSchema: { type: 'object' } }));
    const srv = (extra: object) => mcpServer({ name: 'srv', command: 'node', prefix: '', ...extra });
    expect(mcpTools(srv({ include: ['b', 'A'] }), { server: 'srv', tools: infos }).map((t) => t.name)).toEqual([
      'b',
      'a',
    ]);
    expect(mcpTools(srv({}), { server: 'srv', tools: infos }).map((t) => t.name)).toEqual(['a', 'b']);
    expect(mcpTools(srv({}), undefined)).toEqual([]);
  });

  it("remembers which server and MCP tool each tool calls, and the worker's executor gets exactly that", async () => {
    const tool = tools().find((t) => t.name === 'everything_get_sum')!;
    expect(mcpToolOf(tool)).toEqual({ server: 'everything', tool: 'get-sum' });
    const seen: unknown[] = [];
    const [worker] = mcpTools(server(), { server: 'everything', tools: [listing.tools![0]!] }, async (ref, args) => {
      seen.push(ref, args);
      return { sum: 3 };
    });
    expect(await worker!.execute({ a: 1, b: 2 }, {} as never)).toEqual({ sum: 3 });
    expect(seen).toEqual([
      { server: 'everything', tool: 'get-sum' },
      { a: 1, b: 2 },
    ]);
  });

  it("describes a tool by the override, else the server's text, else what it is", () => {
    expect(one({ name: 't', description: ' Adds. ' })!.description).toBe('Adds.');
    expect(
      one({ name: 't', description: 'Adds.' }, { tools: { t: { description: 'Sums two numbers.' } } })!.description,
    ).toBe('Sums two numbers.');
    expect(one({ name: 't', description: '  ' })!.description).toBe('t (a tool of the MCP server srv).');
    expect(one({ name: 't' })!.description).toBe('t (a tool of the MCP server srv).');
    expect(one({ name: 't', description: 7 })).toBeUndefined();
  });

  it('side effects and approval: read-only runs freely, idempotent may repeat, anything else once; destructive needs review', () => {
    expect(one({ name: 't', annotations: { readOnlyHint: true, idempotentHint: true } })).toMatchObject({
      sideEffects: 'none',
      approval: 'never',
    });
    expect(one({ name: 't', annotations: { idempotentHint: true } })).toMatchObject({ sideEffects: 'idempotent' });
    expect(one({ name: 't', annotations: { readOnlyHint: false, destructiveHint: false } })).toMatchObject({
      sideEffects: 'once',
      approval: 'never',
    });
    expect(one({ name: 't', annotations: { destructiveHint: true } })).toMatchObject({
      sideEffects: 'once',
      approval: 'always',
    });
    const review = { allow: ['accept', 'reject'] as const };
    const overridden = one(
      { name: 't', annotations: { destructiveHint: true } },
      { tools: { t: { sideEffects: 'none', approval: 'never', review: { allow: [...review.allow] } } } },
    );
    expect(overridden).toMatchObject({ sideEffects: 'none', approval: 'never', review });
    // An override for another tool, or inherited from Object.prototype, changes nothing.
    expect(
      one({ name: 'toString', annotations: { readOnlyHint: true } }, { tools: { t: { sideEffects: 'once' } } }),
    ).toMatchObject({ sideEffects: 'none' });
  });

  it("gives each call the server's timeout and 5 s more to start and finish", () => {
    expect(one({ name: 't' }, { timeoutMs: 2_000 })!.timeouts).toMatchObject({ startToCloseMs: 7_000 });
  });

  it("shows the model the server's own schema, without $schema", () => {
    const schema = {
      $schema: 'x',
      type: 'object',
      properties: { q: { type: 'string', minLength: 2 } },
      required: ['q'],
    };
    expect(one({ name: 't', inputSchema: schema })!.spec.args_schema).toEqual({
      type: 'object',
      properties: { q: { type: 'string', minLength: 2 } },
      required: ['q'],
    });
  });

  it('offers an example of the required fields: defaults, first enum value, const, typed placeholders, nested objects', () => {
    const schema = {
      type: 'object',
      properties: {
        s: { type: 'string' },
        long: { type: 'string', minLength: 10 },
        short: { type: 'string', minLength: 3 },
        n: { type: 'number', minimum: 2.5 },
        i: { type: 'integer', minimum: 2.5 },
        plain: { type: 'integer' },
        b: { type: 'boolean' },
        list: { type: 'array' },
        d: { type: 'string', default: 'dflt' },
        e: { enum: ['first', 'second'] },
        c: { const: 'fixed' },
        multi: { type: ['number', 'null'] },
        o: { type: 'object', properties: { inner: { type: 'string' } }, required: ['inner'] },
        optional: { type: 'string' },
      },
      required: ['s', 'long', 'short', 'n', 'i', 'plain', 'b', 'list', 'd', 'e', 'c', 'multi', 'o', 7],
    };
    expect(one({ name: 't', inputSchema: schema })!.examples).toEqual([
      {
        s: 'example',
        long: 'x'.repeat(10),
        short: 'example',
        n: 2.5,
        i: 3,
        plain: 0,
        b: false,
        list: [],
        d: 'dflt',
        e: 'first',
        c: 'fixed',
        multi: 0,
        o: { inner: 'example' },
      },
    ]);
  });

  it('offers no example it cannot fill, nor one the schema itself refuses', () => {
    const ex = (properties: object, required: readonly string[] = Object.keys(properties)) =>
      one({ name: 't', inputSchema: { type: 'object', properties, required } })!.examples;
    expect(ex({ x: { type: 'null' } })).toBeUndefined();
    expect(ex({ x: true })).toBeUndefined();
    expect(ex({ x: { enum: [] } })).toBeUndefined();
    expect(ex({ s: { type: 'string', maxLength: 3 } })).toBeUndefined();
    expect(
      ex({
        a: {
          type: 'object',
          properties: {
            b: {
              type: 'object',
              properties: {
                c: {
                  type: 'object',
                  properties: { d: { type: 'object', properties: { e: { type: 'string' } }, required: ['e'] } },
                  required: ['d'],
                },
              },
              required: ['c'],
            },
          },
          required: ['b'],
        },
      }),
    ).toBeUndefined();
    expect(
      ex({
        a: {
          type: 'object',
          properties: {
            b: {
              type: 'object',
              properties: { c: { type: 'object', properties: { d: { type: 'string' } }, required: ['d'] } },
              required: ['c'],
            },
          },
          required: ['b'],
        },
      }),
    ).toEqual([{ a: { b: { c: { d: 'example' } } } }]);
    expect(ex({})).toEqual([{}]);
    expect(one({ name: 't', inputSchema: { type: 'object' } })!.examples).toBeUndefined();
  });

  it('a schema for something other than an object, or too deep for zod, takes any JSON object', () => {
    for (const inputSchema of [
      { type: 'string' },
      { type: 'object', properties: { x: JSON.parse(`${'{"a":'.repeat(20)}1${'}'.repeat(20)}`) } },
    ]) {
      const tool = one({ name: 't', inputSchema })!;
      expect(tool.input.safeParse({ anything: [1, 'two'] }).success).toBe(true);
      expect(tool.input.safeParse('text').success).toBe(false);
      expect(tool.examples).toBeUndefined();
    }
  });

  it('an empty schema (a tool without arguments) takes any JSON object, and the model sees the schema as listed', () => {
    const tool = one({ name: 't', inputSchema: {} })!;
    expect(tool.input.safeParse({ anything: 1 }).success).toBe(true);
    expect(tool.spec.args_schema).toEqual({});
  });

  it('leaves out a listed tool whose description is not text, even when the agent overrides it', () => {
    expect(one({ name: 't', description: 7 }, { tools: { t: { description: 'Sums.' } } })).toBeUndefined();
  });

  it('an example of no required fields is empty; a required field the schema does not describe gives none, and the schema still checks calls', () => {
    expect(
      one({ name: 't', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } })!.examples,
    ).toEqual([{}]);
    const undescribed = one({
      name: 't',
      inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] },
    })!;
    expect(undescribed.examples).toBeUndefined();
    expect(undescribed.input.safeParse({ a: 5, b: 1 }).success).toBe(false);
    expect(
      one({ name: 't', inputSchema: { type: 'object', properties: { x: {} }, required: ['x'] } })!.examples,
    ).toBeUndefined();
  });

  it('a string of up to 7 characters gets the placeholder "example", a longer minimum gets that many x', () => {
    const schema = {
      type: 'object',
      properties: { seven: { type: 'string', minLength: 7 }, eight: { type: 'string', minLength: 8 } },
      required: ['seven', 'eight'],
    };
    expect(one({ name: 't', inputSchema: schema })!.examples).toEqual([{ seven: 'example', eight: 'xxxxxxxx' }]);
  });

  it('an example the schema refuses is dropped, and the schema still checks calls', () => {
    const tool = one({
      name: 't',
      inputSchema: { type: 'object', properties: { s: { type: 'string', maxLength: 3 } }, required: ['s'] },
    })!;
    expect(tool.examples).toBeUndefined();
    expect(tool.input.safeParse({ s: 'too long' }).success).toBe(false);
    expect(tool.input.safeParse({ s: 'ok' }).success).toBe(true);
  });
});
