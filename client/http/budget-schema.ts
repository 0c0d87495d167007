/**
 * The JSON Schema of a person's decision on a budget request, as AG-UI's `responseSchema` and the
 * inbox advertise it. Node-only (client/http).
 */
import type { BudgetRequest } from '../../workflows/contract/index.js';

/**
 * The schema of a decision on a budget request, `{ decision }`: extend by tokens and/or cost (the
 * limit used up must be extended), or stop. The run's Update validator holds decisions to it.
 */
export function budgetDecisionSchema(request: Pick<BudgetRequest, 'limit'>): Record<string, unknown> {
  const must = request.limit === 'tokens' ? 'tokens' : 'costUsd';
  const extend = {
    type: 'object',
    properties: {
      type: { const: 'extend' },
      tokens: { type: 'integer', minimum: 1 },
      costUsd: { type: 'number', exclusiveMinimum: 0 },
    },
    required: ['type', must],
  };
  const stop = {
    type: 'object',
    properties: { type: { const: 'stop' }, reason: { type: 'string' } },
    required: ['type'],
  };
  return { type: 'object', properties: { decision: { oneOf: [extend, stop] } }, required: ['decision'] };
}
