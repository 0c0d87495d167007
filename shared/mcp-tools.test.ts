import { describe, expect, it } from 'vitest';
import { mcpServer } from './mcp-server.js';
import { mcpToolName, mcpToolOf, mcpTools } from './mcp-tools.js';
import { checkToolCall } from './validate-arguments.js';
import type { McpListing } from './mcp-server.js';

const server = mcpServer({ name: 'everything', command: 'node', args: ['server.js'], exclude: ['get-env'], tools: { 'get-structured-content': { approval: 'always' } } });
const listing: McpListing = {
  server: 'everything',
  tools: [
    { name: 'get-sum', description: 'Adds two numbers', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }, annotations: { readOnlyHint: true } },
    { name: 'get-structured-content', description: 'Weather', inputSchema: { type: 'object', properties: { location: { type: 'string', enum: ['New York', 'Chicago'] } }, required: ['location'] } },
    { name: 'get-env', description: 'Env', inputSchema: { type: 'object', properties: {} } },
    { name: 'delete_all', description: '', inputSchema: { type: 'object', properties: {} }, annotations: { destructiveHint: true } },
    { name: 'weird', description: 'A schema zod cannot read', inputSchema: { type: 'object', properties: { x: { $ref: '#/nowhere' } } } },
  ],
};
const tools = mcpTools(server, listing);
const byName = (name: string) => tools.find((t) => t.name === name)!;
const call = (name: string, args: unknown) => checkToolCall({ name, arguments: JSON.stringify(args) }, tools, { toolCallId: '1.1' });

describe('mcpTools', () => {
  it('names tools <prefix><tool> in snake_case, applies exclude, and keeps the server schema for the model', () => {
    expect(tools.map((t) => t.name)).toEqual(['everything_get_sum', 'everything_get_structured_content', 'everything_delete_all', 'everything_weird']);
    expect(mcpToolName('', 'getTinyImage')).toBe('get_tiny_image');
    expect(mcpToolName('x_', '--')).toBe('x');
    expect(byName('everything_get_sum').spec.args_schema).toEqual({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
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
    expect(missing.failure?.retryHint).toMatchObject({ missingFields: ['b'], exampleInput: { a: 0, b: 0 }, restrictToTool: true });
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
    expect(mcpTools(server, { server: 'everything', error: 'spawn ENOENT' })).toEqual([]);
  });

  it('leaves out what a malformed listing holds instead of throwing (a listing may come from a forged run input)', () => {
    const garbage = [null, 42, { name: 42, inputSchema: {} }, { name: 'no_schema' }, { name: 'str_schema', inputSchema: 'x' }, { name: 'ok', inputSchema: { type: 'object' } }];
    expect(mcpTools(server, { server: 'everything', tools: garbage } as never).map((t) => t.name)).toEqual(['everything_ok']);
    expect(mcpTools(server, { server: 'everything', tools: 'nope' } as never)).toEqual([]);
    const deep = { type: 'object', properties: { x: JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40)) } };
    expect(mcpTools(server, { server: 'everything', tools: [{ name: 'deep', inputSchema: deep }] }).map((t) => t.name)).toEqual(['everything_deep']);
  });

  it('refuses a server definition without exactly one way to reach it', () => {
    expect(() => mcpServer({ name: 'x' })).toThrow(/exactly one of/);
    expect(() => mcpServer({ name: 'Bad-Name', command: 'x' })).toThrow(/snake_case/);
  });

  it('has no execute in the workflow: a call there is a bug', () => {
    expect(() => byName('everything_get_sum').execute({ a: 1, b: 2 }, {} as never)).toThrow(/only a worker reaches/);
  });
});
