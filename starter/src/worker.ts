/**
 * The worker: runs the agents of src/agents.ts with real dependencies, on the Temporal server the
 * environment names (TEMPORAL_ADDRESS, default localhost:7233). `node src/worker.ts`.
 * (`npm start` runs `cairn dev` instead: a dev server and a worker, from cairn.config.ts.)
 */
import { fileURLToPath } from 'node:url';
import { runCairnWorker } from 'cairn-agents/worker';
import { agents, type Order, type Shop } from './agents.ts';
import { scriptedModels } from './scripted-model.ts';

export interface Refund {
  readonly orderId: string;
  readonly amount: number;
  readonly key: string;
}

/** A shop in memory: replace it with your database and payment clients. */
export function demoShop(): Shop & { readonly refunds: Refund[] } {
  const orders = new Map<string, Order>([
    ['A-1001', { id: 'A-1001', total: 45, daysLate: 6 }],
    ['A-1002', { id: 'A-1002', total: 12, daysLate: 0 }],
  ]);
  const refunds: Refund[] = [];
  return {
    refunds,
    async findOrder(orderId) {
      return orders.get(orderId);
    },
    async refund(orderId, amount, key) {
      // Idempotent on the key: a repeated call gets the first refund back.
      if (!refunds.some((refund) => refund.key === key)) refunds.push({ orderId, amount, key });
      return { reference: `RF-${refunds.findIndex((refund) => refund.key === key) + 1}` };
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await runCairnWorker({
      agents,
      deps: demoShop(),
      models: scriptedModels(), // the agent's `scripted:support`; delete with src/scripted-model.ts
      workflowsPath: fileURLToPath(new URL('./agents.ts', import.meta.url)),
      onReady: ({ address, taskQueue }) =>
        console.log(`Worker polling task queue "${taskQueue}" on ${address}. Ctrl-C to stop.`),
    });
  } catch (error) {
    // One line for a person (no server at the address, a bundle that cannot build), not a trace.
    console.error(`worker: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
