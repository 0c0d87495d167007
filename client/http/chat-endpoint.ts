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
import type { AgentRunHandle } from '../agent-run-handle.js';
import { agentName, authorized, body, startThread, type HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import { resolveInterrupt } from './human-actions.js';
import { parseInterruptId, pendingInterrupts, reviewInterruptId } from './interrupts.js';
import { promptOf, textOf } from './prompt-of.js';
import { objectBody } from './read-json-body.js';
import { runError } from './run-errors.js';
import { liveFromNow, runWindow, type LiveFeed } from './run-window.js';
import { deliverMessage } from './user-message.js';
import { workflowIdOf } from './thread-ids.js';
import { streamReadQuery } from '../../workflows/run-stream.js';
import { flushUi, toUiMessageChunks, uiWindowContext } from './ui-message-chunks.js';

interface ChatMessage {
  readonly id?: string;
  readonly role: string;
  readonly parts: readonly Record<string, unknown>[];
}

export async function chat(ctx: HttpContext, request: Request): Promise<Response> {
  const input = objectBody(await body(ctx, request), '{ id, messages }');
  const workflowId = workflowIdOf(input.id, ctx.threadPrefix);
  const messages = chatMessages(input.messages);
  await authorized(ctx, request, 'chat', workflowId);
  const { run, from, live } = await ctx.gate.run(workflowId, async () => {
    const existing = ctx.client.run(workflowId);
    const status = await existing.workflow.describe().then(
      (d) => d.status.name,
      (error) => {
        if ((error as Error).name === 'WorkflowNotFoundError') return 'NONE';
        throw runError(error, workflowId);
      },
    );
    if (status !== 'RUNNING') {
      const prompt = promptOf(messages.map((m) => ({ role: m.role, text: textOf(m.parts) })));
      const agent = agentName(ctx, (input as { agent?: unknown }).agent);
      const live = await liveFromNow(ctx.live, workflowId);
      return { run: await startThread(ctx, request, workflowId, agent, prompt), from: 0, live };
    }
    return { run: existing, ...(await act(ctx, existing, messages)) };
  });
  return uiStream(ctx, run, from, live);
}

/**
 * `GET /chat/:id/stream`, what `useChat({ resume: true })` asks after a reload: the chat's
 * current response again, from its start (the transport takes it as a replay), or 204 when none
 * is under way (the run waits for a person, finished, or never was). A response starts at the
 * person's latest act (the run's last `human` event), or at the run's start; the run's event log
 * is the store a resumable stream needs, so any instance answers.
 */
export async function resumeChat(ctx: HttpContext, request: Request, chatId: string): Promise<Response> {
  const workflowId = workflowIdOf(chatId, ctx.threadPrefix);
  await authorized(ctx, request, 'chat', workflowId);
  const run = ctx.client.run(workflowId);
  const status = await run.workflow.describe().then(
    (d) => d.status.name,
    (error) => ((error as Error).name === 'WorkflowNotFoundError' ? 'NONE' : Promise.reject(runError(error, workflowId))),
  );
  const state = status === 'RUNNING' ? await run.state().catch((error) => Promise.reject(runError(error, workflowId))) : undefined;
  if (!state || state.phase === 'done' || pendingInterrupts(state).length > 0) return new Response(null, { status: 204 });
  const from = await lastActOffset(run);
  // A model call under way is not streamed again from Redis: its text comes whole with its model_turn.
  return uiStream(ctx, run, from, await liveFromNow(ctx.live, workflowId));
}

/** The offset of the run's latest `human` event still in its log; 0 when there is none. */
async function lastActOffset(run: AgentRunHandle): Promise<number> {
  let last = 0;
  for (let from = 0; ; ) {
    const page = await run.workflow.query(streamReadQuery, { topics: ['human'], from_offset: from });
    last = page.items.at(-1)?.offset ?? last;
    if (!page.more_ready) return last;
    from = page.next_offset;
  }
}

/** One window of `run` from `from` (and of `live`), as a UI message stream response. */
function uiStream(ctx: HttpContext, run: AgentRunHandle, from: number, live?: LiveFeed): Response {
  const workflowId = run.workflowId;
  const abort = new AbortController();
  const stream = new ReadableStream<UIMessageChunk>({
    async start(controller) {
      const context = uiWindowContext();
      controller.enqueue({ type: 'start', messageId: `${workflowId}-${from}` });
      try {
        for await (const item of runWindow(run, from, abort.signal, live)) {
          if (item.kind === 'event') {
            for (const chunk of toUiMessageChunks(item.event, context)) controller.enqueue(chunk);
            continue;
          }
          for (const chunk of flushUi(context)) controller.enqueue(chunk);
          if (item.kind === 'waiting') controller.enqueue({ type: 'data-cairn-waiting', data: { runId: run.workflowId, interrupts: pendingInterrupts(item.state) } });
        }
        controller.enqueue({ type: 'finish' });
      } catch (error) {
        if (abort.signal.aborted) return;
        const e = runError(error, run.workflowId);
        if (e.status >= 500) ctx.onError(error);
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
 * Hands the run what the messages answer, after noting where its stream stands (the window
 * starts there): approval responses for its pending reviews, and a last user message for its
 * pending question. Approvals for reviews no longer pending (already decided) are left out.
 * Returns the offset and the live events written since (with a live source).
 */
async function act(ctx: HttpContext, run: AgentRunHandle, messages: readonly ChatMessage[]): Promise<{ from: number; live: LiveFeed | undefined }> {
  const from = await run.offset();
  const live = await liveFromNow(ctx.live, run.workflowId);
  const state = await run.state();
  const pending = new Set(state.reviews.map((r) => reviewInterruptId(r)));
  try {
    for (const m of messages) {
      if (m.role !== 'assistant') continue;
      for (const part of m.parts) {
        const approval = part.approval as { id?: unknown; approved?: unknown; reason?: unknown } | undefined;
        if (part.state !== 'approval-responded' || typeof approval?.id !== 'string' || !pending.has(approval.id)) continue;
        const target = parseInterruptId(approval.id);
        if (target?.kind !== 'review') continue;
        const reason = typeof approval.reason === 'string' ? approval.reason : undefined;
        await resolveInterrupt(run, target, approval.approved === true ? { type: 'accept' } : { type: 'reject', ...(reason && { reason }) });
      }
    }
    const last = messages.at(-1);
    if (state.clarification && last?.role === 'user') await run.answer(textOf(last.parts), state.clarification.id);
    else if (last?.role === 'user' && typeof last.id === 'string' && messages.length > 1 && state.phase !== 'done' && pending.size === 0)
      await deliverMessage(run, textOf(last.parts), `chat:${last.id}`);
  } catch (error) {
    throw runError(error, run.workflowId);
  }
  return { from, live };
}

function chatMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 1_000) throw new HttpError(422, 'invalid_input', '"messages" is a non-empty array of UI messages.');
  return value.map((m) => {
    const message = m as Partial<ChatMessage> | null;
    if (typeof message !== 'object' || message === null || typeof message.role !== 'string' || !Array.isArray(message.parts))
      throw new HttpError(422, 'invalid_input', 'Each message is { role, parts: [...] }.');
    return message as ChatMessage;
  });
}
