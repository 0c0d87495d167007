/** A worker refuses to start without the deps its tools say they read: the deployment's mistake, said before any run. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../shared/agent/define-agent.js';
import { defineTool } from '../shared/tools/define-tool.js';
import { createCairnWorker } from './worker.js';

const findOrder = defineTool({
  name: 'find_order',
  description: 'Look up an order.',
  input: z.object({ orderId: z.string() }),
  needs: ['findOrder'],
  execute: ({ orderId }, { deps }) => (deps as { findOrder(id: string): unknown }).findOrder(orderId),
});
const support = defineAgent({ name: 'support', instructions: 'Help.', model: 'fake:x', tools: [findOrder] });

describe('createCairnWorker', () => {
  it('refuses to start when its deps lack what a tool needs, naming the tool and the key', async () => {
    const started = createCairnWorker({
      agents: [support],
      // Never reached: the check comes first.
      connection: {} as never,
      workflowBundle: { code: '' },
      deps: { findOrdre: () => null },
    });
    await expect(started).rejects.toMatchObject({
      name: 'DefinitionError',
      code: 'missing_deps',
      message: expect.stringContaining("find_order needs deps.findOrder — the worker's deps have: findOrdre."),
    });
  });
});
