/**
 * The demo's scripted model: an order-support conversation in which every failure class happens
 * once and is mended from Cairn's structured hints. Reactive steps read the hints (allowed enum
 * values, the next page, the customer's answer) the way a real model would. It is the orders
 * agent's default model (`scripted:orders-demo`), registered by the demo and by the workers of
 * this repository's cairn.config.ts.
 */
import { PerRunScriptedModel, repairLastCalls, scriptStep, type Script } from 'cairn-agents/testing';
import type { ModelClient } from 'cairn-agents/worker';

const ORDER = 'A-1002';

export const DEMO_PROMPT =
  'Customer ada@example.com writes: "My order A-1002 still has not arrived. Can you sort it out?"';

export const demoScript: Script = [
  // The model puts the order id in the customer field and invents a status: an invalid enum.
  scriptStep.call('search_orders', { customer: ORDER, status: 'shipping' }),
  // Repaired from the hint's allowed values ("shipping" → "shipped"); the id is still in the
  // wrong field, so the search comes back empty with more pages: semantic garbage.
  repairLastCalls(),
  // Rethought: the email, and the legacy feed twice (a truncated body, a schema violation).
  scriptStep.calls([
    { name: 'search_orders', arguments: { customer: 'ada@example.com', status: 'shipped' } },
    { name: 'order_feed', arguments: { since: '2026-11-01' } },
    { name: 'order_feed', arguments: { since: '2026-11-15' } },
  ]),
  // Partial data: follow the hint's next page; and forget the order id for tracking.
  scriptStep.react(() =>
    scriptStep.calls([
      { name: 'search_orders', arguments: { customer: 'ada@example.com', status: 'shipped', page: 2 } },
      { name: 'track_shipment', arguments: {} },
    ]),
  ),
  // The missing field, supplied; the carrier rate-limits once (Cairn backs off, no model turn).
  scriptStep.call('track_shipment', { orderId: ORDER }),
  // A redelivery needs the customer's preferred window; the carrier status API is down.
  scriptStep.calls([
    { name: 'schedule_redelivery', arguments: { orderId: ORDER } },
    { name: 'carrier_status', arguments: {} },
  ]),
  // With the customer's answer: redeliver, and refund the shipping fee (needs a human's approval).
  scriptStep.react(({ messages }) => {
    const answer = [...messages].reverse().find((m) => m.role === 'user' && m.content.includes('answered'));
    const said = answer?.role === 'user' ? (answer.content.split(':').at(-1) ?? '') : '';
    const window = /afternoon/i.test(said) ? 'afternoon' : 'morning';
    return scriptStep.calls([
      { name: 'schedule_redelivery', arguments: { orderId: ORDER, window } },
      { name: 'issue_refund', arguments: { orderId: ORDER, amount: 12, reason: 'delivered 4 days late' } },
    ]);
  }),
  scriptStep.react(({ messages }) => {
    const refund = [...messages].reverse().find((m) => m.role === 'tool' && m.name === 'issue_refund');
    const refunded =
      refund?.role === 'tool' &&
      typeof refund.content === 'object' &&
      refund.content !== null &&
      'refunded' in refund.content;
    return scriptStep.text(
      `Order ${ORDER} is 4 days late at the Lyon sorting hub. I scheduled a redelivery (confirmation RD-4821)` +
        (refunded ? ' and refunded the 12.00 shipping fee.' : '; the shipping-fee refund was not approved.'),
    );
  }),
];

/** The scripts a CLI worker registers, by name: each run gets its own copy, so any number can run at once. */
export function demoScripts(): Record<string, ModelClient> {
  return { 'orders-demo': new PerRunScriptedModel('orders-demo', demoScript) };
}
