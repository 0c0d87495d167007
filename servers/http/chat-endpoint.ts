/**
 * The AI SDK's UI message stream on the handler (what `useChat` posts to and reads): the body is
 * `{ id, messages }` (the chat id is the thread). A chat with no running run starts one from the
 * conversation; a chat whose run waits takes what the messages answer: each approval response
 * (`approval-responded` tool parts, approval ids = review interrupt ids) becomes a review decision,
 * and a last user message answers a pending question. A chat whose run works and waits for nobody
 * takes a new last user message as a message to the run (`run.send`, update id `chat:<message
 * id>`, so a repeated request never delivers it twice). The response is one window of the run as
 * UI message chunks through the `ai` package's `createUIMessageStreamResponse`. Node-only.
 */
import { createUIMessageStreamResponse, type UIMessageChunk } from 'ai';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { agentName, authorizedThread, body, startThread, type HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import { resolveInterrupt } from './human-actions.js';
import { parseInterruptId, pendingInterrupts } from './interrupts.js';
import { promptOf, textOf } from './prompt-of.js';
import { chatBody, parseBody, type ChatMessage } from './request-bodies.js';
import { runScope, scopeEvent } from './run-scope.js';
import { runWindow } from './run-window.js';
import {
  actOn,
  closedOutcome,
  isOpen,
  lookupThread,
  openWindow,
  seen,
  startedWith,
  toThread,
  windowFailure,
  type Seen,
  type WindowStart,
} from './thread.js';
import { decodeJsonItem } from '../../shared/stream-wire.js';
import { flushUi, toUiMessageChunks, uiWindowContext } from './ui-message-chunks.js';

export async function chat(ctx: HttpContext, request: Request): Promise<Response> {
  const input = parseBody(chatBody, await body(ctx, request), '{ id, messages }');
  const { workflowId } = await authorizedThread(ctx, request, 'chat', input.id);
  const messages = input.messages;
  const had = seenIn(messages);
  const last = messages.at(-1)!;
  const thread = await lookupThread(ctx, workflowId);
  let start: WindowStart;
  let runName = thread.firstRunId;
  if (isOpen(thread.status)) start = await act(ctx, thread.run, runScope(thread.firstRunId), messages);
  else if (thread.status !== 'NONE' && last.role !== 'user') start = await closedOutcome(thread, had);
  else {
    // Only a new user message starts the thread's (next) run.
    const prompt = promptOf(messages.map((m) => ({ role: m.role, text: textOf(m.parts) })));
    const agent = agentName(ctx, input.agent);
    if (await startedWith(thread, prompt))
      return uiStream(
        ctx,
        await closedOutcome(thread, had),
        had,
        assistantMessageId(workflowId, thread.firstRunId, 0),
        runScope(thread.firstRunId),
      );
    start = await openWindow(ctx, workflowId, 0, () =>
      ctx.gate.run(undefined, () => startThread(ctx, request, workflowId, agent, prompt)),
    );
    runName = start.run.firstExecutionRunId;
  }
  // A response after the assistant's message (an approval sent automatically) continues that message.
  const messageId =
    last.role === 'assistant' && last.id ? last.id : assistantMessageId(workflowId, runName, start.from);
  return uiStream(ctx, start, had, messageId, runScope(runName));
}

/** What the client has: the tool calls its messages hold, their ids, and the assistant's texts. */
function seenIn(messages: readonly ChatMessage[]): Seen {
  const calls: string[] = [];
  const texts: string[] = [];
  for (const m of messages)
    for (const part of m.parts) {
      if (typeof part.toolCallId === 'string') calls.push(part.toolCallId);
      if (m.role === 'assistant' && part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    }
  return seen(
    calls,
    messages.flatMap((m) => (m.id ? [m.id] : [])),
    texts,
  );
}

/** The id of the assistant message a response starts at `from`: unique across the thread's runs, the same when it is replayed. */
function assistantMessageId(workflowId: string, firstRunId: string | undefined, from: number): string {
  return `${workflowId}-${firstRunId ?? 'run'}-${from}`;
}

/**
 * `GET /chat/:id/stream`, what `useChat({ resume: true })` asks after a reload: the chat's
 * latest assistant message again, whole, under its own id (the transport takes it as a replay,
 * which replaces the message the client has): while the run works, while it waits for a person,
 * and after it closed, so a client that lost the last response gets it, final answer included.
 * 204 only when the thread has no run. The message starts at the person's latest words (the
 * run's last `human` message or answer event), or at the run's start; the run's event log is the
 * store a resumable stream needs, so any instance answers.
 */
export async function resumeChat(ctx: HttpContext, request: Request, chatId: string): Promise<Response> {
  const { workflowId } = await authorizedThread(ctx, request, 'chat', chatId);
  const thread = await lookupThread(ctx, workflowId);
  if (thread.status === 'NONE') return new Response(null, { status: 204 });
  const run = thread.run;
  const from = await lastWordsOffset(run).catch(() => undefined);
  if (from === undefined) return new Response(null, { status: 204 });
  // A model call under way is not streamed again from Redis: its text comes whole with its model_turn.
  const start = isOpen(thread.status) ? await openWindow(ctx, workflowId, from, async () => run) : { run, from };
  return uiStream(
    ctx,
    start,
    undefined,
    assistantMessageId(workflowId, thread.firstRunId, from),
    runScope(thread.firstRunId),
  );
}

/**
 * The offset of the run's latest `human` message or answer still in its log; 0 when there is none;
 * undefined when the run's worker did not answer in time (a stream to resume would wait for it).
 */
async function lastWordsOffset(run: AgentRunHandle): Promise<number | undefined> {
  let last = 0;
  for (let from = 0; ; ) {
    const page = await run.readStream({ topics: ['human'], from_offset: from });
    if (page.stale) return undefined;
    for (const item of page.items) {
      const kind = (decodeJsonItem(item.data) as { kind?: unknown } | undefined)?.kind;
      if (kind === 'message' || kind === 'answer') last = item.offset;
    }
    if (!page.more_ready) return last;
    from = page.next_offset;
  }
}

/**
 * One window as a UI message stream response; `messageId`: the assistant message it writes (absent:
 * the client's last); `scope`: the run's, which its call ids carry (run-scope.ts).
 */
function uiStream(
  ctx: HttpContext,
  start: WindowStart,
  had: Seen | undefined,
  messageId: string | undefined,
  scope: string | undefined,
): Response {
  const run = start.run;
  const abort = new AbortController();
  const stream = new ReadableStream<UIMessageChunk>({
    async start(controller) {
      const context = uiWindowContext(had, scope);
      controller.enqueue(messageId ? { type: 'start', messageId } : { type: 'start' });
      try {
        if (start.closed) {
          const id = start.closed.id;
          for (const chunk of [
            { type: 'start-step' },
            { type: 'text-start', id },
            { type: 'text-delta', id, delta: start.closed.answer },
            { type: 'text-end', id },
            { type: 'finish-step' },
          ] as const)
            controller.enqueue(chunk);
        } else {
          if (start.delivery)
            controller.enqueue({
              type: 'data-cairn-delivery',
              id: `delivery-${start.delivery.id}`,
              data: start.delivery,
            });
          for await (const item of runWindow(run, start.from, abort.signal, start.live)) {
            if (item.kind === 'event') {
              for (const chunk of toUiMessageChunks(scopeEvent(item.event, scope), context)) controller.enqueue(chunk);
              continue;
            }
            for (const chunk of flushUi(context)) controller.enqueue(chunk);
            if (item.kind === 'waiting') {
              const interrupts = pendingInterrupts(item.state, scope);
              controller.enqueue({
                type: 'data-cairn-waiting',
                id: 'waiting',
                data: { runId: run.workflowId, interrupts },
              });
              // A budget request: what was spent and the limit; a person decides it with POST /runs/:id/budget.
              for (const p of interrupts)
                if (p.kind === 'budget')
                  controller.enqueue({
                    type: 'data-cairn-budget',
                    id: p.id,
                    data: {
                      runId: run.workflowId,
                      interruptId: p.id,
                      request: p.request,
                      usage: p.usage,
                      extended: p.extended,
                    },
                  });
            } else
              controller.enqueue({
                type: 'data-cairn-waiting',
                id: 'waiting',
                data: { runId: run.workflowId, interrupts: [] },
              });
          }
        }
        controller.enqueue({
          type: 'finish',
          finishReason: context.cancelled || start.closed?.cancelled ? 'other' : 'stop',
        });
      } catch (error) {
        if (abort.signal.aborted) return;
        const e = await windowFailure(ctx, run.workflowId, error);
        controller.enqueue({ type: 'error', errorText: `${e.code}: ${e.message}` });
      }
      controller.close();
    },
    cancel() {
      abort.abort(new Error('The client went away.'));
    },
  });
  return createUIMessageStreamResponse({ stream });
}

/**
 * An approval the person just gave (in the last message, the one the client sends it in) for a call
 * of an earlier run of the thread: refused as REST and AG-UI refuse it (409 `not_pending`), so the
 * client is told. Earlier messages' approvals are the conversation's past, decided long ago.
 */
function refuseStaleApprovals(last: ChatMessage, scope: string | undefined): void {
  if (last.role !== 'assistant') return;
  for (const part of last.parts) {
    const id = (part.approval as { id?: unknown } | undefined)?.id;
    if (part.state !== 'approval-responded' || typeof id !== 'string') continue;
    if (parseInterruptId(id, scope) === 'stale')
      throw new HttpError(
        409,
        'not_pending',
        `Approval "${id.slice(0, 200)}" belongs to an earlier run of this thread; the run now open has its own.`,
      );
  }
}

/**
 * Hands the run what the messages answer, after noting where its stream stands (the window
 * starts there): approval responses for its pending reviews, then a new last user message (it
 * answers the open question, or waits for the next model turn). Approvals for reviews no longer
 * pending (already decided) are left out; one of an earlier run in the last message is refused.
 */
async function act(
  ctx: HttpContext,
  run: AgentRunHandle,
  scope: string | undefined,
  messages: readonly ChatMessage[],
): Promise<WindowStart> {
  const last = messages.at(-1)!;
  const said = last.role === 'user' && messages.length > 1 ? textOf(last.parts) : '';
  refuseStaleApprovals(last, scope);
  let delivery: WindowStart['delivery'];
  const start = await openWindow(ctx, run.workflowId, 'now', async () => {
    await actOn(ctx, run, async () => {
      const state = await run.state();
      // Scoped: an approval of an earlier run's call (its id names that run) is never this run's.
      const pending = new Set(pendingInterrupts(state, scope).flatMap((p) => (p.kind === 'review' ? [p.id] : [])));
      for (const m of messages) {
        if (m.role !== 'assistant') continue;
        for (const part of m.parts) {
          const approval = part.approval as { id?: unknown; approved?: unknown; reason?: unknown } | undefined;
          if (part.state !== 'approval-responded' || typeof approval?.id !== 'string' || !pending.has(approval.id))
            continue;
          const target = parseInterruptId(approval.id, scope);
          if (target === 'stale' || target?.kind !== 'review') continue;
          const reason = typeof approval.reason === 'string' ? approval.reason : undefined;
          await resolveInterrupt(
            run,
            target,
            approval.approved === true ? { type: 'accept' } : { type: 'reject', ...(reason && { reason }) },
          );
        }
      }
    });
    if (said.trim() !== '') delivery = (await toThread(ctx, run, said, `chat:${last.id ?? 'last'}`)).delivery;
    return run;
  });
  return { ...start, ...(delivery && { delivery }) };
}
