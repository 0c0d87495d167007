/**
 * Providers beyond OpenAI-compatible: Anthropic through its real AI SDK provider (HTTP answered by
 * a local fetch), and any provider a worker brings, including ones built with `ai` 7's own
 * helpers (customProvider, createProviderRegistry, MockLanguageModelV4).
 */
import { describe, expect, it } from 'vitest';
import { createProviderRegistry, customProvider } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { resolveModel } from '../activities/model/resolve-model.js';
import type { GenerateInput } from '../activities/model/model-client.js';
import { toModelView } from '../shared/tools/model-view.js';
import { toolError } from '../shared/failures/tool-error.js';
import { NO_TELEMETRY } from '../shared/tools/tool-result.js';

const failed = toModelView({
  status: 'error',
  toolCallId: '1.1',
  name: 'lookup_order',
  error: toolError('missing_fields', 'orderId is required.'),
  telemetry: NO_TELEMETRY,
  retryHint: {
    tool: 'lookup_order',
    reason: 'missing_fields',
    missingFields: ['orderId'],
    exampleInput: { orderId: 'A-1001' },
  },
});

/** A turn after a failed call: the model must see Cairn's structured error in the provider's tool-result form. */
const input: GenerateInput = {
  messages: [
    { role: 'system', content: 'You help with orders.' },
    { role: 'user', content: 'Where is my order?' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ toolCallId: '1.1', providerCallId: 'toolu_1', name: 'lookup_order', args: {} }],
    },
    { role: 'tool', toolCallId: '1.1', providerCallId: 'toolu_1', name: 'lookup_order', content: failed },
  ],
  tools: [
    {
      name: 'lookup_order',
      description: 'Find an order.',
      args_schema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    },
  ],
  toolChoice: 'auto',
};

/** A fetch that records request bodies and answers with `reply`. */
function anthropicServer(reply: () => Response) {
  const bodies: Record<string, unknown>[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    return reply();
  };
  return { bodies, fetch: fetch as typeof globalThis.fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('anthropic:<model>', () => {
  const env = { ANTHROPIC_API_KEY: 'sk-ant-secret', ANTHROPIC_BASE_URL: 'http://anthropic.test/v1' };

  it("sends tools and Cairn's structured error as a tool_result, and reads tool_use back", async () => {
    const server = anthropicServer(() =>
      json(200, {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [{ type: 'tool_use', id: 'toolu_2', name: 'lookup_order', input: { orderId: 'A-1001' } }],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 7 },
      }),
    );
    const outcome = await resolveModel('anthropic:claude-test', { env, fetch: server.fetch }).generate(input);
    expect(outcome).toMatchObject({
      status: 'ok',
      response: {
        toolCalls: [{ id: 'toolu_2', name: 'lookup_order', arguments: '{"orderId":"A-1001"}' }],
        finishReason: 'tool_calls',
      },
    });
    const body = server.bodies[0]!;
    expect(body).toMatchObject({
      model: 'claude-test',
      tools: [{ name: 'lookup_order', input_schema: { required: ['orderId'] } }],
    });
    const blocks = (
      body.messages as { content: { type: string; tool_use_id?: string; content?: unknown }[] }[]
    ).flatMap((m) => m.content);
    const result = blocks.find((b) => b.type === 'tool_result');
    expect(result).toMatchObject({ tool_use_id: 'toolu_1' });
    expect(JSON.stringify(result)).toContain('missingFields');
  });

  it('maps 429 with retry-after to rate_limited, without leaking the key', async () => {
    const server = anthropicServer(() =>
      json(
        429,
        { type: 'error', error: { type: 'rate_limit_error', message: 'slow down sk-ant-secret' } },
        { 'retry-after': '7' },
      ),
    );
    const outcome = await resolveModel('anthropic:claude-test', { env, fetch: server.fetch }).generate(input);
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'rate_limited' }, retryAfterMs: 7_000 });
    expect(JSON.stringify(outcome)).not.toContain('sk-ant-secret');
  });

  it('needs ANTHROPIC_API_KEY', () => {
    expect(() => resolveModel('anthropic:claude-test', { env: {} })).toThrow(/needs ANTHROPIC_API_KEY/);
  });
});

describe('providers a worker brings', () => {
  const answer = (text: string): LanguageModelV4GenerateResult => ({
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
    warnings: [],
  });

  it('resolves a custom prefix to any AI SDK provider, built with ai 7', async () => {
    const model = new MockLanguageModelV4({ doGenerate: answer('Shipped yesterday.') });
    const provider = customProvider({ languageModels: { fast: model } });
    const outcome = await resolveModel('acme:fast', { env: {}, providers: { acme: provider } }).generate(input);
    expect(outcome).toMatchObject({ status: 'ok', response: { text: 'Shipped yesterday.', toolCalls: [] } });
    // The adapter passed the transcript on as the provider's prompt, tool result included.
    expect(model.doGenerateCalls[0]!.prompt.some((m) => m.role === 'tool')).toBe(true);
  });

  it('takes an ai provider registry, whose ids name the provider too', async () => {
    const registry = createProviderRegistry({
      acme: customProvider({ languageModels: { fast: new MockLanguageModelV4({ doGenerate: answer('ok') }) } }),
    });
    const outcome = await resolveModel('registry:acme:fast', { env: {}, providers: { registry } }).generate(input);
    expect(outcome).toMatchObject({ status: 'ok', response: { text: 'ok' } });
  });

  it('takes a plain model factory, and an unknown prefix lists the custom ones too', async () => {
    const model = new MockLanguageModelV4({ doGenerate: answer('ok') });
    await resolveModel('mine:any', { env: {}, providers: { mine: () => model } }).generate(input);
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(() => resolveModel('theirs:any', { env: {}, providers: { mine: () => model } })).toThrow(
      /Unknown model provider "theirs".*also has: mine:/,
    );
  });

  it('turns a provider\'s "no such model" into a ModelConfigError, which Temporal does not retry', () => {
    const registry = createProviderRegistry({ acme: customProvider({ languageModels: {} }) });
    expect(() => resolveModel('registry:acme:typo', { env: {}, providers: { registry } })).toThrow(
      expect.objectContaining({ name: 'ModelConfigError', message: expect.stringMatching(/registry:acme:typo/) }),
    );
  });
});
