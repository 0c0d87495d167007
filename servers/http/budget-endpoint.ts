/**
 * `POST /runs/:id/budget`: a person decides the run's pending budget request (policy
 * `budget.onExhausted: 'ask'`): extend it by tokens and/or cost, or stop the run. A thin call into
 * `run.extendBudget`; the run's validator decides (unusable amounts 422, a stale or decided request
 * 409, a closed run 409 `run_closed`, by run-errors.ts). Authorized as a `review`. Node-only.
 */
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { authorized, body, type HttpContext } from './http-context.js';
import { budgetDecisionOf } from './human-actions.js';
import { budgetBody, parseBody } from './request-bodies.js';
import { actOn } from './thread.js';

export async function budget(ctx: HttpContext, request: Request, run: AgentRunHandle): Promise<Response> {
  await authorized(ctx, request, 'review', run.workflowId);
  const input = parseBody(budgetBody, await body(ctx, request), '{ requestId?, decision }');
  const decision = budgetDecisionOf(input.decision);
  const { requestId } = await actOn(ctx, run, () => run.extendBudget(decision, input.requestId));
  return Response.json({ runId: run.workflowId, requestId, decision: decision.type });
}
