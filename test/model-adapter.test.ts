/**
 * The AI SDK adapter against a real local Chat Completions server: what Cairn makes of each kind
 * of provider reply, and what it sends.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../shared/tools/define-tool.js';
import type { ModelOutcome, ModelResponse } from '../shared/model/model-response.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { ModelClient } from '../activities/model/model-client.js';
import { ModelConfigError, ModelNetworkError, ModelServerError } from '../activities/model/model-errors.js';
import { resolveModel } from '../activities/model/resolve-model.js';
import { parseRetryAfter } from '../activities/model/retry-after.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { ChatCompletionsServer, completion, errorReply } from './support/chat-completions-server.js';

const searchOrders: ToolSpec = {
  name: 'search_orders',
  description: 'Search orders by status.',
  args_schema: {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['placed', 'shipped', 'delivered', 'cancelled'] },
      page: { type: 'integer' },
    },
    required: ['status'],
    additionalProperties: false,
  },
};

const failureContent = { error: { kind: 'invalid_input', code: 'invalid_arguments', message: 'bad status' } };

const transcript: TranscriptMessage[] = [
  { role: 'system', content: 'You are an order assistant.' },
  { role: 'user', content: 'Which orders shipped?' },
  {
    role: 'assistant',
    content: '<think>Search first.</think>Searching.',
    toolCalls: [
      { toolCallId: '1.0', providerCallId: 'call_abc', name: 'search_orders', args: { status: 'shipping' } },
      { toolCallId: '1.1', name: 'search_orders', args: '{"status": "shipped"' },
    ],
  },
  {
    role: 'tool',
    toolCallId: '1.0',
    providerCallId: 'call_abc',
    name: 'search_orders',
    content: failureContent,
  },
  { role: 'tool', toolCallId: '1.1', name: 'search_orders', content: { orders: [] } },
];

const server = new ChatCompletionsServer();
let model: ModelClient;

beforeAll(async () => {
  await server.start();
  model = resolveModel('openai-compatible:test-model', {
    env: { CAIRN_MODEL_BASE_URL: server.url, CAIRN_MODEL_API_KEY: 'sk-test-secret-key' },
  });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending).toBe(0);
});

async function generate(toolChoice: 'auto' | 'none' | { tool: string } = 'auto'): Promise<ModelOutcome> {
  return model.generate({ messages: transcript, tools: [searchOrders], toolChoice });
}

function responseOf(outcome: ModelOutcome): ModelResponse | null {
  if (outcome.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(outcome)}`);
  return outcome.response;
}

function lastBody(): Record<string, unknown> {
  return server.requests.at(-1)!.body as Record<string, unknown>;
}

describe('replies', () => {
  it('parses a tool call: name, raw arguments, provider id', async () => {
    server.enqueue(
      completion({ toolCalls: [{ id: 'call_xyz', name: 'search_orders', arguments: '{"status":"shipped"}' }] }),
    );
    const response = responseOf(await generate());
    expect(response).toEqual({
      text: '',
      toolCalls: [{ id: 'call_xyz', name: 'search_orders', arguments: '{"status":"shipped"}' }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 11, outputTokens: 7 },
    });
  });

  it('passes malformed tool-call JSON through raw, without throwing', async () => {
    const malformed = '{"status": "shipped", "page": ';
    server.enqueue(completion({ toolCalls: [{ id: 'call_bad', name: 'search_orders', arguments: malformed }] }));
    const response = responseOf(await generate());
    expect(response?.toolCalls).toEqual([{ id: 'call_bad', name: 'search_orders', arguments: malformed }]);
  });

  it('returns an empty response as no text and no tool calls', async () => {
    server.enqueue(completion({ content: null }));
    const response = responseOf(await generate());
    expect(response).toMatchObject({ text: '', toolCalls: [], finishReason: 'stop' });
    expect(response?.interrupted).toBeUndefined();
  });

  it('preserves a think-only answer, inline or as reasoning_content', async () => {
    server.enqueue(completion({ content: '<think>Maybe I should search.</think>' }));
    expect(responseOf(await generate())?.text).toBe('<think>Maybe I should search.</think>');
    server.enqueue(completion({ content: 'Two orders.', reasoning_content: 'Count them.' }));
    expect(responseOf(await generate())?.text).toBe('<think>Count them.</think>Two orders.');
  });

  it('maps a 429 with Retry-After: 2 to a rate_limited outcome of 2000 ms', async () => {
    server.enqueue(errorReply(429, 'Slow down.', { 'retry-after': '2' }));
    const outcome = await generate();
    expect(outcome).toMatchObject({
      status: 'error',
      retryAfterMs: 2000,
      failure: 'rate_limited',
      error: { code: 'rate_limited', kind: 'transient' },
    });
  });

  it('maps a 529, a 503 and a 500 saying "overloaded" to an overloaded outcome the workflow waits out', async () => {
    server.enqueue(errorReply(529, 'Overloaded', { 'retry-after': '3' }));
    expect(await generate()).toMatchObject({
      status: 'error',
      failure: 'overloaded',
      retryAfterMs: 3000,
      error: { code: 'rate_limited' },
    });
    server.enqueue(errorReply(503, 'Service unavailable'));
    expect(await generate()).toMatchObject({ status: 'error', failure: 'overloaded' });
    server.enqueue(errorReply(500, 'The engine is currently overloaded, please try again later'));
    expect(await generate()).toMatchObject({ status: 'error', failure: 'overloaded' });
  });

  it('maps a 404 model_not_found to misconfigured', async () => {
    server.enqueue(errorReply(404, 'The model `gpt-5-nonexistent` does not exist'));
    const outcome = await generate();
    expect(outcome).toMatchObject({ status: 'error', failure: 'misconfigured' });
    expect(outcome.status === 'error' && outcome.error.message).toMatch(/does not know this model/);
  });

  it('throws a retryable ModelServerError on a 500', async () => {
    server.enqueue(errorReply(500, 'Internal server error'));
    const error: unknown = await generate().catch((e: unknown) => e);
    expect(ModelServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ name: 'ModelServerError', statusCode: 500 });
    // Temporal takes the constructor name as the failure type that retry policies match on.
    expect((error as Error).constructor.name).toBe('ModelServerError');
  });

  it('maps 401 to a misconfigured outcome (never tool_unavailable), with the key masked', async () => {
    server.enqueue(errorReply(401, 'Incorrect API key provided: sk-test-secret-key.'));
    const outcome = await generate();
    expect(outcome).toMatchObject({ status: 'error', failure: 'misconfigured', error: { code: 'internal_error' } });
    const message = outcome.status === 'error' ? outcome.error.message : '';
    expect(message).toMatch(/Not retryable/);
    expect(message).not.toContain('sk-test-secret-key');
    expect(outcome).not.toHaveProperty('retryAfterMs');
  });

  it('maps a 400 to a non-retryable internal_error outcome', async () => {
    server.enqueue(errorReply(400, 'Invalid schema for function search_orders'));
    expect(await generate()).toMatchObject({ status: 'error', error: { code: 'internal_error' } });
  });

  it('maps a 200 body without choices to a null response', async () => {
    server.enqueue({ status: 200, body: { id: 'x', choices: [] } });
    expect(await generate()).toEqual({ status: 'ok', response: null });
  });

  it('throws a retryable ModelNetworkError when nothing answers', async () => {
    const closed = new ChatCompletionsServer();
    await closed.start();
    const url = closed.url;
    await closed.close();
    const offline = resolveModel('openai-compatible:test-model', { env: { CAIRN_MODEL_BASE_URL: url } });
    const error: unknown = await offline
      .generate({ messages: transcript, tools: [], toolChoice: 'auto' })
      .catch((e: unknown) => e);
    expect(ModelNetworkError.isInstance(error)).toBe(true);
    expect((error as Error).name).toBe('ModelNetworkError');
  });
});

describe('request', () => {
  it('sends tools as functions with their JSON schema, and the key as a bearer token', async () => {
    server.enqueue(completion({ content: 'ok' }));
    await generate();
    const request = server.requests.at(-1)!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test-secret-key');
    expect(lastBody()).toMatchObject({ model: 'test-model', tool_choice: 'auto' });
    expect(lastBody().stream).toBeFalsy();
    expect(lastBody().tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'search_orders',
          description: searchOrders.description,
          parameters: searchOrders.args_schema,
        },
      },
    ]);
  });

  it('converts the transcript: provider call ids, arguments as JSON, tool results as role tool', async () => {
    server.enqueue(completion({ content: 'ok' }));
    await generate();
    expect(lastBody().messages).toEqual([
      { role: 'system', content: 'You are an order assistant.' },
      { role: 'user', content: 'Which orders shipped?' },
      {
        role: 'assistant',
        // Earlier reasoning is not sent back.
        content: 'Searching.',
        tool_calls: [
          { id: 'call_abc', type: 'function', function: { name: 'search_orders', arguments: '{"status":"shipping"}' } },
          // No provider id: Cairn's own id; malformed raw text goes back as a JSON string.
          {
            id: '1.1',
            type: 'function',
            function: { name: 'search_orders', arguments: JSON.stringify('{"status": "shipped"') },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_abc', content: JSON.stringify(failureContent) },
      { role: 'tool', tool_call_id: '1.1', content: '{"orders":[]}' },
    ]);
  });

  it('maps the tool choice: none, and a named tool', async () => {
    server.enqueue(completion({ content: 'ok' }), completion({ content: 'ok' }));
    await generate('none');
    expect(lastBody().tool_choice).toBe('none');
    await generate({ tool: 'search_orders' });
    expect(lastBody().tool_choice).toEqual({ type: 'function', function: { name: 'search_orders' } });
  });

  it('sends neither tools nor tool_choice when there are no tools', async () => {
    server.enqueue(completion({ content: 'ok' }));
    await model.generate({ messages: transcript, tools: [], toolChoice: 'none' });
    expect(lastBody()).not.toHaveProperty('tools');
    expect(lastBody()).not.toHaveProperty('tool_choice');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads retry-after-ms first, then Retry-After seconds or HTTP-date', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '1500', 'retry-after': '9' }, now)).toBe(1500);
    expect(parseRetryAfter({ 'Retry-After': '2' }, now)).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }, now)).toBe(5000);
    expect(parseRetryAfter({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }, now)).toBe(0);
  });
  it('names no wait for absent or unreadable headers', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '-3' }, now)).toBeUndefined();
  });
});

describe('resolveModel', () => {
  it('refuses unknown prefixes, listing the accepted forms', () => {
    expect(() => resolveModel('claude:opus', { env: {} })).toThrow(
      /Unknown model provider "claude".*\n.*openai:<model>/s,
    );
    const error: unknown = (() => {
      try {
        resolveModel('nonsense', { env: {} });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect((error as Error).name).toBe('ModelConfigError');
  });

  it('refuses missing keys, base URLs, model names and scripts', () => {
    expect(() => resolveModel('openai:gpt-4.1-mini', { env: {} })).toThrow(/needs OPENAI_API_KEY/);
    expect(() => resolveModel('openai-compatible:m', { env: {} })).toThrow(/needs CAIRN_MODEL_BASE_URL/);
    expect(() => resolveModel('openai:', { env: { OPENAI_API_KEY: 'k' } })).toThrow(/names no model/);
    expect(() =>
      resolveModel('scripted:missing', { env: {}, scripts: { demo: new ScriptedModel('demo', []) } }),
    ).toThrow(/No script named "missing".*known: demo/);
  });

  it('resolves the providers without touching the network, and scripts to their live instance', () => {
    expect(resolveModel('openai:gpt-4.1-mini', { env: { OPENAI_API_KEY: 'k' } })).toBeDefined();
    expect(resolveModel('ollama:llama3.1', { env: {} })).toBeDefined();
    const demo = new ScriptedModel('demo', []);
    expect(resolveModel('scripted:demo', { scripts: { demo } })).toBe(demo);
  });

  it('never puts the key in a config error', () => {
    expect(() => resolveModel('bogus:x', { env: { OPENAI_API_KEY: 'sk-very-secret' } })).not.toThrow(/sk-very-secret/);
  });
});
