/**
 * The order-support demo's tools. Each one shows a failure class from the taxonomy: an invalid
 * enum, semantic garbage, partial data, truncated JSON, a schema violation, a missing field, a
 * rate limit with retry-after, an unavailable API, a refund that needs approval, and a question
 * only the customer can answer. The data is canned: the demo runs with no network.
 */
import { z } from 'zod';
import { defineTool, Result, ToolFailure, validator } from 'cairn-agents';

const STATUSES = ['placed', 'shipped', 'delivered', 'cancelled'] as const;
const Order = z.object({
  id: z.string(),
  customer: z.string(),
  status: z.enum(STATUSES),
  total: z.number(),
  shippingFee: z.number(),
});
const ORDERS = [
  { id: 'A-1001', customer: 'ada@example.com', status: 'delivered', total: 120, shippingFee: 9 },
  { id: 'A-1002', customer: 'ada@example.com', status: 'shipped', total: 80, shippingFee: 12 },
  { id: 'A-1003', customer: 'ada@example.com', status: 'shipped', total: 35, shippingFee: 6 },
  { id: 'A-1004', customer: 'ada@example.com', status: 'shipped', total: 18, shippingFee: 4 },
] as const;
const PAGE_SIZE = 2;

export const searchOrders = defineTool({
  name: 'search_orders',
  description: "Search a customer's orders by status. Results come one page at a time.",
  input: z.object({
    customer: z.string().describe("The customer's email address"),
    status: z.enum(STATUSES),
    page: z.number().int().min(1).default(1),
  }),
  output: z.object({ orders: z.array(Order), has_more: z.boolean() }),
  examples: [{ customer: 'ada@example.com', status: 'shipped', page: 1 }],
  check: (out, args) => {
    if (out.orders.length === 0 && out.has_more)
      return {
        code: 'semantic_error',
        message: `Page ${args.page} is empty but more pages exist: "${args.customer}" does not look like a customer email.`,
      };
    if (out.has_more)
      return {
        code: 'partial_data',
        message: `This is page ${args.page}; more orders exist.`,
        nextInput: { page: args.page + 1 },
      };
    return undefined;
  },
  execute: ({ customer, status, page }) => {
    // Like many real APIs, an id in the customer field silently matches nothing.
    if (!customer.includes('@')) return { orders: [], has_more: true };
    const all = ORDERS.filter((o) => o.customer === customer && o.status === status);
    return { orders: all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), has_more: all.length > page * PAGE_SIZE };
  },
});

export const orderFeed = defineTool({
  name: 'order_feed',
  description: 'Read the legacy order-events feed since a date (YYYY-MM-DD).',
  input: z.object({ since: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) }),
  output: z.object({ events: z.array(z.object({ orderId: z.string(), status: z.enum(STATUSES) })) }),
  examples: [{ since: '2026-11-01' }],
  // The feed is broken in two ways: a truncated body, and a status the schema does not know.
  execute: ({ since }) =>
    since < '2026-11-10'
      ? '{"events": [{"orderId": "A-1002", "status": "shipp'
      : JSON.stringify({ events: [{ orderId: 'A-1002', status: 'shipping' }] }),
});

// Calls rate-limited once and not yet retried; per call, so concurrent runs do not interfere.
const limited = new Set<string>();
export const trackShipment = defineTool({
  name: 'track_shipment',
  description: 'Where a shipped order is now.',
  input: z.object({ orderId: z.string().regex(/^A-\d+$/) }),
  examples: [{ orderId: 'A-1001' }],
  execute: ({ orderId }, { idempotencyKey }) => {
    // The carrier rate-limits the first try of each call; the back-off re-run (same key) gets through.
    if (!limited.delete(idempotencyKey)) {
      limited.add(idempotencyKey);
      throw ToolFailure.rateLimited('Carrier API: 429 Too Many Requests', 1_000);
    }
    return { orderId, lastScan: 'Lyon sorting hub', daysLate: 4 };
  },
});

export const carrierStatus = defineTool({
  name: 'carrier_status',
  description: "The carrier's system status page.",
  input: z.object({}),
  execute: () => {
    throw ToolFailure.unavailable('carrier status API answered 503 Service Unavailable');
  },
});

export const scheduleRedelivery = defineTool({
  name: 'schedule_redelivery',
  description: 'Schedule a new delivery attempt in a morning or afternoon window.',
  input: z.object({ orderId: z.string(), window: z.enum(['morning', 'afternoon']).optional() }),
  examples: [{ orderId: 'A-1001', window: 'morning' }],
  postHook: validator('confirmation_number', (out: { confirmation: string }) =>
    /^RD-\d{4}$/.test(out.confirmation)
      ? Result.success()
      : Result.failure('The confirmation number must look like RD-1234.'),
  ),
  execute: ({ orderId, window }) => {
    if (!window)
      throw ToolFailure.invalidArguments('A delivery window is required.', {
        missingFields: ['window'],
        clarifyingQuestion: 'Which delivery window suits you for the redelivery: morning or afternoon?',
      });
    return { orderId, window, confirmation: 'RD-4821' };
  },
});

/**
 * The demo's payment provider, canned and in memory: it dedupes refunds by idempotency key and
 * answers whether a key was paid, as real ones do (examples/refunds/payment-api.ts is the same, whole).
 */
const refunds = new Map<string, { orderId: string; refunded: number; reference: string }>();

export const issueRefund = defineTool({
  name: 'issue_refund',
  description: "Refund an amount on an order. Refunds above 10 need a human's approval.",
  input: z.object({ orderId: z.string(), amount: z.number().positive(), reason: z.string() }),
  sideEffects: 'once',
  approval: ({ amount }) => amount > 10,
  examples: [{ orderId: 'A-1001', amount: 9, reason: 'late delivery' }],
  execute: ({ orderId, amount }, { idempotencyKey }) => {
    const paid = refunds.get(idempotencyKey) ?? { orderId, refunded: amount, reference: `RF-${refunds.size + 1}` };
    refunds.set(idempotencyKey, paid);
    return paid;
  },
  // A lost attempt (timed out, its worker died) is settled by asking the provider, not a person (docs/tools.md).
  reconcile: ({ idempotencyKey }) => {
    const paid = refunds.get(idempotencyKey);
    return paid ? { happened: true, result: paid } : { happened: false };
  },
});

export const ORDER_TOOLS = [searchOrders, orderFeed, trackShipment, carrierStatus, scheduleRedelivery, issueRefund];
