/**
 * Where a run stands, as an MCP tool result (text for people and models, structured content for
 * programs), and the run's status as one agent's tool sees it — shared by tool calls and by MCP
 * tasks (run-task-store.ts). Node-only (client side).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { Caller } from '../http/authorize.js';
import { HttpError } from '../http/http-error.js';
import { describePending, RunInputError, runInputError, type PendingInput } from '../a2a/run-input.js';
import { runStatus, type RunStatus } from '../a2a/run-status.js';

/** The run's status for the agent's tool (any agent's, with none): another agent's run is unknown. */
export async function statusOf(run: AgentRunHandle, agent: string | undefined, caller: Caller): Promise<RunStatus> {
  const status = await runStatus(run, caller.tenant);
  if (agent !== undefined && status.state && status.state.agent !== agent)
    throw new RunInputError('unknown_run', `No run "${run.workflowId}" of agent ${agent}.`);
  return status;
}

/**
 * The tool result for where the run stands: text for people and models, structured content for
 * programs. Read without the run's worker (`state.stale`), it says so: `stale: true`, and a text part.
 */
export function result(status: RunStatus): CallToolResult {
  const told = resultOf(status);
  if (!status.state?.stale) return told;
  return {
    ...told,
    content: [...told.content, { type: 'text', text: STALE_NOTE }],
    structuredContent: { ...told.structuredContent, stale: true },
  };
}

/** What a result read without the run's worker adds to its text. */
export const STALE_NOTE =
  '(No worker answered for this run in time: this is what Temporal keeps of it, and may be behind.)';

function resultOf(status: RunStatus): CallToolResult {
  const runId = status.workflowId;
  switch (status.status) {
    case 'completed':
      return {
        content: [{ type: 'text', text: status.answer ?? '' }],
        structuredContent: { runId, status: 'completed', answer: status.answer ?? '' },
      };
    case 'canceled':
      return {
        content: [
          {
            type: 'text',
            text: `Run ${runId} was canceled (${status.reason ?? 'cancelled'}).${status.answer ? ` ${status.answer}` : ''}`,
          },
        ],
        structuredContent: {
          runId,
          status: 'canceled',
          ...(status.answer && { answer: status.answer }),
          ...(status.reason && { reason: status.reason }),
        },
      };
    case 'failed':
      return {
        isError: true,
        content: [{ type: 'text', text: `Run ${runId} failed: ${status.reason ?? 'unknown reason'}` }],
        structuredContent: {
          runId,
          status: 'failed',
          ...(status.answer && { answer: status.answer }),
          ...(status.reason && { reason: status.reason }),
        },
      };
    case 'working':
      return {
        content: [
          {
            type: 'text',
            text: `Run ${runId} is still working. Call this tool again with { "runId": "${runId}" } to wait for it.`,
          },
        ],
        structuredContent: { runId, status: 'working', howToAnswer: `Call again with { "runId": "${runId}" }.` },
      };
    case 'input_required': {
      const pending = status.pending!;
      const how = howToAnswer(runId, pending);
      return {
        content: [{ type: 'text', text: `Run ${runId} waits for a person.\n${describePending(pending)}\n${how}` }],
        structuredContent: JSON.parse(
          JSON.stringify({
            runId,
            status: 'input_required',
            question: pending.question,
            reviews: pending.reviews,
            budget: pending.budget,
            howToAnswer: how,
          }),
        ) as Record<string, unknown>,
      };
    }
  }
}

function howToAnswer(runId: string, pending: PendingInput): string {
  const parts: string[] = [];
  if (pending.question) parts.push(`"answer": <text, or an object fitting the question's schema>`);
  if (pending.budget)
    parts.push(
      `"budget": { "type": "extend", "${pending.budget.limit === 'tokens' ? 'tokens' : 'costUsd'}": <more> } or { "type": "stop" }`,
    );
  if (pending.reviews.length > 0)
    parts.push(
      `"decisions": [{ "toolCallId", "argsHash", "decision": "accept" | "edit" | "respond" | "reject" (allowed ones only), "args"?, "content"?, "reason"? }]`,
    );
  return `Call this tool again with { "runId": "${runId}", ${parts.join(', ')} }.`;
}

/**
 * A call's error as the tool result its client is told, in both MCP revisions: input the run
 * refused, or a tenant over its runs limit. Anything else is thrown on (the SDK reports it).
 */
export function refusedCall(error: unknown, runId: string | undefined): CallToolResult {
  const refused = runInputError(error, runId ?? '');
  if (RunInputError.isInstance(refused)) return failure(refused.code, refused.message, runId);
  if (HttpError.isInstance(error) && error.status === 429) return failure(error.code, error.message, undefined);
  throw error;
}

function failure(code: string, message: string, runId: string | undefined): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}${runId ? ` (run ${runId})` : ''}` }] };
}
