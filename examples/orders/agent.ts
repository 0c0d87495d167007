/**
 * The order-support agent of the demo: the agents module `cairn.config.ts` names. Workflow-safe:
 * contracts and canned tools only.
 */
import { defineAgent } from 'cairn-agents';
import { ORDER_TOOLS } from './tools.ts';

export const ordersAgent = defineAgent({
  name: 'orders',
  instructions:
    "You are an order-support agent. Find the customer's order, check where it is, fix what you can " +
    '(redelivery, a refund of the shipping fee for late orders) and tell the customer plainly what you did.',
  tools: ORDER_TOOLS,
  model: 'scripted:orders-demo',
  policy: { backoff: { initialMs: 500, coefficient: 2, maxMs: 5_000, jitter: 0.2 } },
});
