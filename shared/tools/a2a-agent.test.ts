import { describe, expect, it } from 'vitest';
import { a2aAgent, a2aAgentOf, a2aCallSchema, DEFAULT_A2A_TIMEOUT_MS } from './a2a-agent.js';
import { DefinitionError } from '../failures/definition-error.js';
import { defineTool } from './define-tool.js';
import { z } from 'zod';

describe('a2aAgent', () => {
  // Built inside each test: a tool built while the file loads is not tied to a test by mutation testing.
  const remote = () =>
    a2aAgent({
      url: 'https://remote.example/a2a/orders',
      name: 'remote_orders',
      description: 'The remote order agent.',
    });

  it('is a once tool that a person answers for, with room in its timeouts to follow the task', () => {
    const tool = remote();
    expect(tool.approval).toBe('never');
    expect(tool.sideEffects).toBe('once');
    expect(a2aAgentOf(tool)).toMatchObject({
      url: 'https://remote.example/a2a/orders',
      onInputRequired: 'person',
      timeoutMs: DEFAULT_A2A_TIMEOUT_MS,
    });
    expect(tool.timeouts).toEqual({ startToCloseMs: DEFAULT_A2A_TIMEOUT_MS + 15_000, heartbeatMs: 10_000 });
    expect(
      a2aAgentOf(defineTool({ name: 'plain', description: 'A plain tool.', input: z.object({}), execute: () => 1 })),
    ).toBeUndefined();
    expect(() => tool.execute({ message: 'x' } as never, {} as never)).toThrow(/the worker runs it/);
  });

  it('takes a message for a new task, or a task id to continue one', () => {
    expect(a2aCallSchema.safeParse({ message: 'Refund A-1' }).success).toBe(true);
    expect(
      a2aCallSchema.safeParse({ taskId: 't', reply: { decision: 'accept', toolCallId: 'c', argsHash: 'h' } }).success,
    ).toBe(true);
    expect(a2aCallSchema.safeParse({}).success).toBe(false);
    expect(a2aCallSchema.safeParse({ message: '   ' }).success).toBe(false);
  });

  it('takes a person or the model to answer input requests, and keeps a review config', () => {
    const base = { url: 'http://remote.example/a2a', name: 'remote', description: 'd' };
    for (const onInputRequired of ['person', 'model'] as const)
      expect(a2aAgentOf(a2aAgent({ ...base, onInputRequired }))?.onInputRequired).toBe(onInputRequired);
    const review = { allow: ['accept', 'reject'] as const, description: 'Check the refund amount.' };
    expect(a2aAgent({ ...base, review }).review).toMatchObject(review);
    expect(a2aAgent(base).review).toBeUndefined();
    const quick = a2aAgent({ ...base, timeoutMs: 5_000, sideEffects: 'idempotent', approval: 'always' });
    expect([quick.timeouts?.startToCloseMs, quick.sideEffects, quick.approval]).toStrictEqual([
      20_000,
      'idempotent',
      'always',
    ]);
  });

  it('keeps the public keys a card must be signed by, as plain data for the worker', () => {
    const trust = {
      keys: [
        '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----',
        { kty: 'OKP', crv: 'Ed25519', x: 'a' },
      ],
    };
    const tool = a2aAgent({ url: 'http://remote.example/a2a', name: 'remote', description: 'd', trust });
    expect(a2aAgentOf(tool)?.trust).toStrictEqual(trust);
    expect(JSON.parse(JSON.stringify(a2aAgentOf(tool)?.trust))).toStrictEqual(trust);
    expect(a2aAgentOf(a2aAgent({ url: 'http://x', name: 'r', description: 'd' }))?.trust).toBeUndefined();
  });

  it.each([
    [{ url: 'see https://remote.example', name: 'a_b', description: 'd' }, 'url must be an http(s) URL'],
    [{ url: 'https://remote.example /a2a', name: 'a_b', description: 'd' }, 'url must be an http(s) URL'],
    [{ url: 'ftp://x', name: 'a_b', description: 'd' }, 'url must be an http(s) URL'],
    [{ url: 'not a url', name: 'a_b', description: 'd' }, 'url must be an http(s) URL'],
    [
      { url: 'http://x', name: 'a_b', description: 'd', onInputRequired: 'robot' },
      "onInputRequired is 'person' or 'model'",
    ],
    [{ url: 'http://x', name: 'a_b', description: 'd', trust: { keys: [] } }, 'trust.keys lists one or more'],
    [{ url: 'http://x', name: 'a_b', description: 'd', trust: {} }, 'trust.keys lists one or more'],
    [
      { url: 'http://x', name: 'a_b', description: 'd', trust: { keys: ['-----BEGIN PRIVATE KEY-----\nAA'] } },
      'trust.keys[0] is not a public key',
    ],
    [
      {
        url: 'http://x',
        name: 'a_b',
        description: 'd',
        trust: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'a', d: 'b' }] },
      },
      'trust.keys[0] is not a public key',
    ],
  ])('refuses %j', (config, message) => {
    const error = (() => {
      try {
        a2aAgent(config as never);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(DefinitionError.isInstance(error) && (error as DefinitionError).code).toBe('invalid_a2a_agent');
    expect((error as Error).message).toContain(message);
  });
});
