/**
 * The support agent end to end on a real Temporal dev server, with a scripted model in place of
 * the real one: it asks for the order id, gets it, and its refund waits for approval and runs once.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scriptStep, startTestEnvironment, type TestEnvironment } from 'cairn-agents/testing';
import { agents } from './agents.ts';
import { helpCustomer } from './client.ts';
import { demoShop } from './worker.ts';

const shop = demoShop();
let env: TestEnvironment;

beforeAll(async () => {
  env = await startTestEnvironment({
    agents,
    deps: shop,
    workflowsPath: fileURLToPath(new URL('./agents.ts', import.meta.url)),
  });
}, 120_000);
afterAll(() => env?.close());

it('asks for the order, refunds it after approval, once', async () => {
  const { model } = env.script([
    scriptStep.call('find_order', {}), // no id: Cairn asks the customer
    scriptStep.react(({ messages }) => {
      const said = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
      return scriptStep.call('find_order', { orderId: /A-\d+/.exec(String(said))?.[0] ?? '' });
    }),
    scriptStep.call('issue_refund', { orderId: 'A-1001', amount: 45, reason: '6 days late' }),
    scriptStep.text('Order A-1001 was 6 days late, so I refunded its 45 in full.'),
  ]);
  const asked: string[] = [];
  const approved: unknown[] = [];
  const answer = await helpCustomer(
    env.client,
    'My order came a week late. I want my money back.',
    {
      ask: async (question) => (asked.push(question), 'It is A-1001.'),
      approve: async (_tool, args) => (approved.push(args), true),
    },
    { model },
  );
  // In the customer's words (the field's description), never the tool's name.
  expect(asked).toEqual(['I need a bit more information: the order id, like A-1001. Could you provide it?']);
  expect(approved).toEqual([{ orderId: 'A-1001', amount: 45, reason: '6 days late' }]);
  expect(shop.refunds).toEqual([{ orderId: 'A-1001', amount: 45, key: expect.any(String) }]);
  expect(answer).toBe('Order A-1001 was 6 days late, so I refunded its 45 in full.');
}, 60_000);
