/**
 * The plain JSON endpoints: start a run (or find the thread's), read its state, stream its events
 * (SSE, ids = stream offsets, resumable with Last-Event-ID), answer its question, decide a
 * review, send it a message while it works, cancel it, and the inbox. Each is a thin call into the client API. Node-only.
 */
import { randomUUID } from 'node:crypto';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { withinReadDeadline } from '../../client/bounded-read.js';
import { finalStreamOf } from '../../client/final-stream.js';
import { agentName, authorized, authorizedThread, body, startThread, type HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import { answerOf } from './human-actions.js';
import { MAX_PAGE, readInbox } from './inbox.js';
import { answerBody, cancelBody, messageBody, parseBody, startRunBody } from './request-bodies.js';
import { parseReviewRequest } from '../../shared/human-input/review-decision.js';
import { isJsonObject } from '../../shared/json/json.js';
import { runError } from './run-errors.js';
import { isScoped, runScope, unscoped } from './run-scope.js';
import { actOn, closedError, isOpen, lookupThread } from './thread.js';
import { sseFrame, sseResponse } from './sse.js';
import { deliverMessage } from './user-message.js';

export async function startRun(ctx: HttpContext, request: Request): Promise<Response> {
  const input = parseBody(startRunBody, await body(ctx, request), 'the run to start ({ agent?, prompt, threadId? })');
  if (input.prompt.length > 40_000)
    throw new HttpError(413, 'body_too_large', 'The prompt is longer than 40,000 characters.');
  const agent = agentName(ctx, input.agent);
  const threadId = input.threadId ?? randomUUID();
  const { workflowId } = await authorizedThread(ctx, request, 'start', threadId);
  await ctx.gate.run(undefined, () => startThread(ctx, request, workflowId, agent, input.prompt));
  return Response.json({ runId: workflowId, threadId, agent }, { status: 201 });
}

/**
 * The run's Temporal status and its state: the run's own answer within the client's read deadline,
 * else what Temporal keeps of it (`state.stale`). A state that cannot be read at all is null.
 */
export async function readRun(ctx: HttpContext, request: Request, run: AgentRunHandle): Promise<Response> {
  await authorized(ctx, request, 'read', run.workflowId);
  const { status } = await ctx.gate.run(undefined, () => run.describe());
  const state = await run.state({ deadlineMs: run.readDeadlineMs }).catch(() => null);
  return Response.json({ runId: run.workflowId, status: status.name, state });
}

export async function streamEvents(
  ctx: HttpContext,
  request: Request,
  run: AgentRunHandle,
  url: URL,
): Promise<Response> {
  await authorized(ctx, request, 'events', run.workflowId);
  const from = startOffset(request, url);
  const { status } = await ctx.gate.run(undefined, () => run.workflow.describe());
  // A finished run read past its end: 204 tells an EventSource not to reconnect. Only then: an end
  // not known (no worker answered) streams what there is, never a 204 that would lose the rest.
  if (status.name !== 'RUNNING' && status.name !== 'CONTINUED_AS_NEW') {
    const end = await closedEnd(run, status.name === 'COMPLETED');
    if (end !== undefined && from >= end) return new Response(null, { status: 204 });
  }
  return sseResponse(
    async function* (signal) {
      for await (const event of ctx.feeds.events(run, from, signal))
        yield sseFrame({ id: event.offset, data: JSON.stringify(event) });
      yield `event: end\ndata: {}\n\n`;
    },
    { 'content-type': 'text/event-stream; charset=utf-8' },
    {
      onError: (error) =>
        `event: error\ndata: ${JSON.stringify({ error: errorBody(runError(error, run.workflowId)) })}\n\n`,
    },
  );
}

export async function answer(ctx: HttpContext, request: Request, run: AgentRunHandle): Promise<Response> {
  await authorized(ctx, request, 'answer', run.workflowId);
  const input = parseBody(answerBody, await body(ctx, request), '{ answer, questionId? }');
  const value = answerOf(input.answer);
  const asked = input.questionId === undefined ? undefined : await ownId(ctx, run, input.questionId);
  const { questionId } = await actOn(ctx, run, () => run.answer(value, asked));
  return Response.json({ runId: run.workflowId, questionId });
}

export async function review(
  ctx: HttpContext,
  request: Request,
  run: AgentRunHandle,
  toolCallId: string,
): Promise<Response> {
  await authorized(ctx, request, 'review', run.workflowId);
  const sent = await body(ctx, request);
  if (!isJsonObject(sent))
    throw new HttpError(400, 'invalid_request', 'Expected { argsHash, decision } as a JSON object.');
  const input = parseReviewRequest(sent);
  if (!input.ok) throw new HttpError(422, 'invalid_input', input.message);
  // What the parser read, never fields beside it.
  const { decision } = input.value;
  const own = await ownId(ctx, run, toolCallId);
  const target = input.value.argsHash !== undefined ? { toolCallId: own, argsHash: input.value.argsHash } : own;
  const decided = await actOn(ctx, run, () => run.review(target, decision));
  return Response.json({ runId: run.workflowId, toolCallId, argsHash: decided.argsHash, decision: decision.type });
}

export async function message(ctx: HttpContext, request: Request, run: AgentRunHandle): Promise<Response> {
  await authorized(ctx, request, 'message', run.workflowId);
  const input = parseBody(messageBody, await body(ctx, request), '{ text, updateId? }');
  const sent = await actOn(ctx, run, () => deliverMessage(run, input.text, input.updateId));
  return Response.json({ runId: run.workflowId, messageId: sent.id, delivery: sent.delivery }, { status: 202 });
}

export async function cancel(ctx: HttpContext, request: Request, run: AgentRunHandle): Promise<Response> {
  await authorized(ctx, request, 'cancel', run.workflowId);
  const input = parseBody(cancelBody, await body(ctx, request), '{ reason? }');
  await actOn(ctx, run, async () => {
    const thread = await lookupThread(ctx, run.workflowId);
    if (thread.status === 'NONE') throw new HttpError(404, 'unknown_run', `No run with id "${run.workflowId}".`);
    if (!isOpen(thread.status)) throw closedError(run.workflowId, thread.status);
    await run.cancel(input.reason);
  });
  return Response.json({ runId: run.workflowId, cancelled: true }, { status: 202 });
}

export async function inbox(ctx: HttpContext, request: Request): Promise<Response> {
  const caller = await authorized(ctx, request, 'inbox');
  const url = new URL(request.url);
  const cursor = url.searchParams.get('cursor') ?? undefined;
  const rawLimit = url.searchParams.get('limit');
  const limit = rawLimit === null ? undefined : Number(rawLimit);
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE))
    throw new HttpError(400, 'invalid_request', `limit is a whole number from 1 to ${MAX_PAGE}.`);
  const page = await ctx.gate.run(undefined, () =>
    readInbox(ctx.client, ctx.agents, ctx.temporalUiUrl, caller.tenant, { cursor, limit }, ctx.inboxListings),
  );
  // Never cached: a browser holds a second request for a URL until the first is answered (its cache lock).
  return Response.json(page, { headers: { 'cache-control': 'no-store' } });
}

/**
 * A call or question id as the run knows it. One sent back as the chat surfaces and the inbox
 * show it (`<id>@<scope>`, run-scope.ts) is read against the thread's current run: another run's
 * is refused (409 `not_pending`), so a late decision never lands on a later run's call of the same number.
 */
async function ownId(ctx: HttpContext, run: AgentRunHandle, id: string): Promise<string> {
  if (!isScoped(id)) return id;
  const thread = await lookupThread(ctx, run.workflowId);
  if (thread.status === 'NONE') return id; // the act answers 404
  const own = unscoped(id, runScope(thread.firstRunId));
  if (own === 'stale')
    throw new HttpError(
      409,
      'not_pending',
      `"${id.slice(0, 200)}" belongs to an earlier run of this thread; the run now open numbers its own.`,
    );
  return own.id;
}

/** `Last-Event-ID` + 1, else `?from=`, else 0. */
function startOffset(request: Request, url: URL): number {
  const last = request.headers.get('last-event-id');
  const raw = last !== null && last !== '' ? last : url.searchParams.get('from');
  if (raw === null || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < (last !== null && last !== '' ? -1 : 0))
    throw new HttpError(400, 'invalid_request', 'Last-Event-ID and ?from= are stream offsets (whole numbers).');
  return last !== null && last !== '' ? n + 1 : n;
}

export function errorBody(error: HttpError): { code: string; message: string } {
  return { code: error.code, message: error.message };
}

/**
 * Where a closed run's event log ends: a completed run's result in history says it (no worker
 * needed); else its worker, within the read deadline; undefined when neither tells.
 */
async function closedEnd(run: AgentRunHandle, completed: boolean): Promise<number | undefined> {
  const final = completed ? finalStreamOf(await run.workflow.result().catch(() => undefined)) : undefined;
  if (final) return final.next_offset;
  return withinReadDeadline(run, () => run.offset()).catch(() => undefined);
}
