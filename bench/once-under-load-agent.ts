/**
 * The agents of bench/once-under-load.ts: one `sideEffects: 'once'` tool that records an effect
 * under its idempotency key in a table outside the worker, and never dedupes (a key recorded twice
 * is the duplicate the bench counts). `once_bench` has no `reconcile`, as in issue 50's trial, so
 * any attempt the run cannot account for goes to a person; `once_bench_reconciled` looks the key
 * up. Default timeouts (a 10 s heartbeat timeout), as the issue measured. Workflow-safe: the
 * contract only; the table arrives through deps.
 */
import { z } from 'zod';
import { defineAgent } from '../shared/agent/define-agent.js';
import { defineTool, type ToolContext } from '../shared/tools/define-tool.js';

/** Where effects land: the worker's side (bench/once-under-load-worker.ts). */
export interface EffectTable {
  /** Records that `execute` began for `key`, works a little, then records the effect. */
  record(key: string, entry: string, context: ToolContext): Promise<{ readonly entry: string }>;
  /** Whether an effect under `key` was recorded. */
  recorded(key: string): Promise<boolean>;
}

/** The entries a run records, one `once` call each, in this order. */
export const ENTRIES = ['E1', 'E2'] as const;

const recordEffect = defineTool({
  name: 'record_effect',
  description: 'Record an entry; it must happen at most once.',
  input: z.object({ entry: z.string() }),
  sideEffects: 'once',
  execute: ({ entry }, context: ToolContext<EffectTable>) =>
    context.deps.record(context.idempotencyKey, entry, context),
});

export const onceAgent = defineAgent({
  name: 'once_bench',
  instructions: 'Record the entries, then answer.',
  tools: [recordEffect],
});

export const onceReconciledAgent = defineAgent({
  name: 'once_bench_reconciled',
  instructions: 'Record the entries, then answer.',
  tools: [
    defineTool({
      ...recordEffect,
      name: 'record_effect_reconciled',
      reconcile: async ({ idempotencyKey, args }, { deps }: ToolContext<EffectTable>) =>
        (await deps.recorded(idempotencyKey)) ? { happened: true, result: { entry: args.entry } } : { happened: false },
    }),
  ],
});
