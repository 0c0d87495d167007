import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DefinitionError } from '../failures/definition-error.js';
import { defineTool } from './define-tool.js';
import { missingNeeds } from './tool-needs.js';

const findOrder = defineTool({
  name: 'find_order',
  description: 'Look up an order.',
  input: z.object({ orderId: z.string() }),
  needs: ['orders'],
  execute: ({ orderId }, { deps }) => (deps as { orders: Map<string, unknown> }).orders.get(orderId) ?? null,
});
const refund = defineTool({
  name: 'issue_refund',
  description: 'Refund an order.',
  input: z.object({ orderId: z.string() }),
  needs: ['payments', 'orders'],
  execute: () => 'ok',
});
const free = defineTool({ name: 'now', description: 'The time.', input: z.object({}), execute: () => 'noon' });

describe('missingNeeds', () => {
  it('is quiet when every tool has what it reads', () => {
    expect(missingNeeds([findOrder, refund, free], { orders: new Map(), payments: {} })).toBeUndefined();
    expect(missingNeeds([free], undefined)).toBeUndefined();
  });

  it('names each tool, the keys it lacks, and what the deps do have', () => {
    expect(missingNeeds([findOrder, refund], { orders: new Map() })).toBe(
      "issue_refund needs deps.payments — the worker's deps have: orders. Pass them as createCairnWorker({ deps }) or `deps` in cairn.config.ts.",
    );
    expect(missingNeeds([findOrder, refund], undefined)).toBe(
      'find_order needs deps.orders; issue_refund needs deps.payments, deps.orders — the worker was given no deps. Pass them as createCairnWorker({ deps }) or `deps` in cairn.config.ts.',
    );
  });

  it('refuses needs that are not a list of keys', () => {
    const bad = () =>
      defineTool({ name: 'x', description: 'x', input: z.object({}), needs: [''] as string[], execute: () => 'x' });
    expect(bad).toThrow(DefinitionError);
    expect(bad).toThrow(/needs is a list of the keys of deps/);
  });
});
