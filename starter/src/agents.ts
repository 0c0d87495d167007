/**
 * The support agent and its tools. Workflow code imports this file (it is the workflow bundle's
 * entry), so it holds contracts only: anything that touches the outside world comes in through
 * `deps`, which src/worker.ts supplies to the tools on the worker.
 */
import { z } from 'zod';
import { defineAgent, defineTool, ToolFailure, type ToolContext } from 'cairn-agents';
import { defineAgentRun } from 'cairn-agents/workflow';

export interface Order {
  readonly id: string;
  readonly total: number;
  readonly daysLate: number;
}

/** What the tools need from the world; src/worker.ts implements it. */
export interface Shop {
  findOrder(orderId: string): Promise<Order | undefined>;
  /** Must be idempotent on `key`: Cairn passes the same key if a call is ever repeated. */
  refund(orderId: string, amount: number, key: string): Promise<{ readonly reference: string }>;
}

/** A read tool. Without an order id the planner asks the customer (policy missingFieldsFrom: 'user'). */
export const findOrder = defineTool({
  name: 'find_order',
  description: 'Look up an order by its id, e.g. A-1001.',
  input: z.object({
    orderId: z
      .string()
      .regex(/^A-\d+$/)
      .describe('The order id, like A-1001'),
  }),
  examples: [{ orderId: 'A-1001' }],
  needs: ['findOrder'], // the worker refuses to start without deps.findOrder
  execute: async ({ orderId }, { deps }: ToolContext<Shop>) => {
    const order = await deps.findOrder(orderId);
    if (!order)
      throw ToolFailure.invalidArguments(`There is no order ${orderId}.`, {
        clarifyingQuestion: 'Which order number is it?',
      });
    return order;
  },
});

/** A side-effecting tool: run at most once per call, and refunds above 20 wait for a person's review. */
export const issueRefund = defineTool({
  name: 'issue_refund',
  description: 'Refund part or all of an order. Refunds above 20 need a person to approve them.',
  input: z.object({ orderId: z.string(), amount: z.number().positive(), reason: z.string() }),
  sideEffects: 'once',
  approval: ({ amount }) => amount > 20,
  needs: ['refund'],
  execute: async ({ orderId, amount }, { deps, idempotencyKey }: ToolContext<Shop>) =>
    deps.refund(orderId, amount, idempotencyKey),
});

export const supportAgent = defineAgent({
  name: 'support',
  instructions:
    'You are a support agent for an online shop. Look up the order the customer means, and refund late ' +
    'orders in full. Tell the customer plainly what you did.',
  tools: [findOrder, issueRefund],
  // A scripted model (src/scripted-model.ts), so it runs with no API key. A real one instead:
  // model: 'openai:gpt-4.1-mini', with OPENAI_API_KEY set and @ai-sdk/openai-compatible installed
  // (or anthropic:…, ollama:…; Cairn's docs/models.md).
  model: 'scripted:support',
  policy: { missingFieldsFrom: 'user' },
});

export const agents = [supportAgent];

/** The workflow the worker runs: Cairn's agent loop over these agents. */
export const agentRun = defineAgentRun(agents);
