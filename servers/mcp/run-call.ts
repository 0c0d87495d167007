/**
 * One agent's MCP tool call, whichever MCP revision carries it: its input (start a run with a
 * `prompt`, or continue one by `runId` with an `answer`, `decisions` or a `budget`), its output,
 * how a call starts or continues the run (asking `authorize` with the HTTP request's headers, the
 * tenant's limit), and how it waits for the run to need someone or end. Stateless: every call
 * reads its run from Temporal. Shared by the 2025-11-25 server (cairn-mcp-server.ts) and the
 * 2026-07-28 one (stateless-mcp-server.ts). Node-only (client side).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Agent } from '../../shared/agent/define-agent.js';
import type { JsonValue } from '../../shared/json/json.js';
import { carriedFields, REVIEW_DECISIONS } from '../../shared/human-input/review-decision.js';
import { budgetDecisionSchema } from '../../shared/human-input/budget-decision.js';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { INTERACTIVE_PRIORITY } from '../../client/cairn-client.js';
import { checkAuthorized, type Caller, type HttpAction } from '../http/authorize.js';
import { withinTenantLimit } from '../http/tenant-limit.js';
import {
  applyReplies,
  parseReply,
  replyAction,
  RunInputError,
  runInputError,
  type RunReply,
} from '../a2a/run-input.js';
import { isTerminal, type RunStatus } from '../a2a/run-status.js';
import { statusOf } from './run-result.js';
import type { CairnMcpServerOptions } from './cairn-mcp-server.js';

export const CANCEL_REASON = 'cancelled over MCP';

const decisionSchema = z.object({
  toolCallId: z.string().min(1).max(500),
  argsHash: z.string().min(1).max(200),
  decision: z.enum(REVIEW_DECISIONS).describe('What to do with the held call.'),
  // What each decision carries beside it (shared/human-input/review-decision.ts); the run's parser checks the whole.
  ...Object.fromEntries(
    carriedFields().map((c) => [
      c.field,
      (c.value === 'text' ? z.string() : z.unknown()).optional().describe(`${c.what} (${c.by})`),
    ]),
  ),
});

export const inputShape = {
  prompt: z
    .string()
    .trim()
    .min(1)
    .max(40_000)
    .optional()
    .describe('What the agent should do: starts a new run. Leave out to continue a run (runId).'),
  runId: z.string().min(1).max(500).optional().describe("The run to continue, from an earlier result's runId."),
  answer: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())])
    .optional()
    .describe("The answer to the run's pending question: text, or an object of the fields its schema names."),
  decisions: z
    .array(decisionSchema)
    .max(32)
    .optional()
    .describe('Decisions on held tool calls: each names the toolCallId and argsHash the result showed.'),
  budget: budgetDecisionSchema
    .optional()
    .describe("A decision on the run's spent budget: extend it by tokens and/or costUsd, or stop the run."),
};

export const outputShape = {
  runId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'canceled']),
  answer: z.string().optional(),
  reason: z.string().optional(),
  question: z.record(z.string(), z.unknown()).nullable().optional(),
  reviews: z.array(z.record(z.string(), z.unknown())).optional(),
  budget: z.record(z.string(), z.unknown()).nullable().optional(),
  howToAnswer: z.string().optional(),
  /** Read without the run's worker (none answered in time): what Temporal keeps, which may be behind. */
  stale: z.boolean().optional(),
};

export type CallArgs = {
  prompt?: string | undefined;
  runId?: string | undefined;
  answer?: string | Record<string, unknown> | undefined;
  decisions?: z.infer<typeof decisionSchema>[] | undefined;
  budget?: z.infer<typeof inputShape.budget> | undefined;
};

export function describeAgent(agent: Agent): string {
  const flat = agent.instructions.replace(/\s+/g, ' ').trim();
  const tools = agent.tools.map((t) => t.name).join(', ');
  return `${flat.length > 400 ? `${flat.slice(0, 399)}…` : flat}${tools ? ` (tools: ${tools})` : ''} A durable Cairn run: give a prompt to start; when the result's status is input_required, call again with its runId and an answer or decisions.`;
}

/** Starts the run, or delivers the answer and decisions to the run named. `request`: the HTTP request (none over stdio). */
export async function begin(
  options: CairnMcpServerOptions,
  agent: string,
  args: CallArgs,
  request: Request | undefined,
): Promise<{ readonly run: AgentRunHandle; readonly caller: Caller; readonly read?: RunStatus }> {
  if (args.runId === undefined) {
    if (args.prompt === undefined)
      throw new RunInputError('invalid_input', 'Give a prompt to start a run, or the runId of a run to continue.');
    if (args.answer !== undefined || args.decisions !== undefined || args.budget !== undefined)
      throw new RunInputError('invalid_input', 'An answer or decisions go to a run: give its runId.');
    const workflowId = `${options.runPrefix ?? 'cairn-mcp-'}${agent}-${randomUUID()}`;
    const caller = await authorize(options, request, 'start', undefined);
    const extraStart = options.startOptions?.({ agent, workflowId }) ?? {};
    if (caller.tenant !== undefined)
      await withinTenantLimit(options.client, options.maxRunsPerTenant, caller.tenant, workflowId);
    const run = await options.client.start({
      // A person waits on the call (an IDE, a desktop client): it goes ahead of background runs.
      priority: { priorityKey: INTERACTIVE_PRIORITY },
      ...(caller.tenant !== undefined && { tenant: caller.tenant }),
      ...(caller.user !== undefined && { user: caller.user }),
      ...extraStart,
      agent,
      prompt: args.prompt,
      workflowId,
    });
    return { run, caller };
  }
  if (args.prompt !== undefined)
    throw new RunInputError('invalid_input', 'Give either a prompt (a new run) or a runId (continue one), not both.');
  // The result is the run's status: reading it is asked first, so another tenant's run is unknown before anything else.
  const caller = await authorize(options, request, 'read', args.runId);
  const run = options.client.run(args.runId);
  const status = await statusOf(run, agent, caller);
  const replies: RunReply[] = [];
  if (args.answer !== undefined)
    replies.push({
      kind: 'answer',
      answer: args.answer as JsonValue,
      ...(status.pending?.question && { questionId: status.pending.question.id }),
    });
  for (const d of args.decisions ?? []) replies.push(parseReply(d, false));
  if (args.budget !== undefined)
    replies.push(
      parseReply(
        { budget: args.budget, ...(status.pending?.budget && { requestId: status.pending.budget.id }) },
        false,
      ),
    );
  if (replies.length === 0) return { run, caller, read: status };
  if (isTerminal(status.status))
    throw new RunInputError('closed', `Run "${run.workflowId}" is ${status.status}; it takes no more answers.`);
  if (status.status !== 'input_required')
    throw new RunInputError(
      'not_pending',
      `Run "${run.workflowId}" is not waiting for an answer or a decision (it is ${status.status}).`,
    );
  for (const action of new Set(replies.map(replyAction))) await authorize(options, request, action, run.workflowId);
  await applyReplies(run, replies);
  return { run, caller };
}

/** Gives the run a person's reply, as `authorize` allows; a reply the run refuses (it does not fit) is dropped: the person is asked anew. */
export async function applyAuthorized(
  options: CairnMcpServerOptions,
  request: Request | undefined,
  run: AgentRunHandle,
  reply: RunReply,
): Promise<void> {
  try {
    await authorize(options, request, replyAction(reply), run.workflowId);
    await applyReplies(run, [reply]);
  } catch (error) {
    const refused = runInputError(error, run.workflowId);
    if (!RunInputError.isInstance(refused) || refused.code === 'unknown_run' || refused.code === 'closed')
      throw refused;
  }
}

/** Waits until the run needs someone or ends (a paused run is waited out), until `until`; an abort throws. */
export async function waitIdle(run: AgentRunHandle, signal: AbortSignal, until: number): Promise<void> {
  while (Date.now() < until) {
    signal.throwIfAborted();
    const idle = run.untilIdle().then(
      (state) => (state.paused ? 'paused' : 'idle'),
      () => 'closed' as const,
    );
    const aborted = new Promise<'aborted'>((resolve) =>
      signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
    );
    const outcome = await Promise.race([idle, aborted, sleep(Math.max(until - Date.now(), 0), 'timeout' as const)]);
    if (outcome === 'aborted') signal.throwIfAborted();
    if (outcome !== 'paused') return;
    await sleep(1_000);
  }
}

/**
 * Waits for the run until it needs someone or ends, or until `until` (then it still works):
 * a run idle but still working (its final answer being written, a hand-over) is looked at again shortly.
 */
export async function settle(
  run: AgentRunHandle,
  agent: string,
  caller: Caller,
  signal: AbortSignal,
  until: number,
): Promise<RunStatus> {
  for (;;) {
    await waitIdle(run, signal, until);
    const status = await statusOf(run, agent, caller);
    if (status.status !== 'working' || Date.now() >= until) return status;
    await sleep(250, undefined, { signal });
  }
}

/** Asks `authorize` with the request's headers; returns who is asking (`{}` over stdio or when it does not say). */
export async function authorize(
  options: CairnMcpServerOptions,
  request: Request | undefined,
  action: HttpAction,
  workflowId: string | undefined,
): Promise<Caller> {
  if (!options.authorize || !request) return {};
  try {
    return await checkAuthorized(
      options.authorize,
      request,
      action,
      workflowId === undefined ? undefined : { workflowId },
    );
  } catch (error) {
    throw new RunInputError('invalid_input', `Not allowed to ${action}: ${(error as Error).message}`);
  }
}
