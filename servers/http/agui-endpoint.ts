/**
 * AG-UI on the handler: a POST of `RunAgentInput` answered by an SSE stream of AG-UI events
 * (`@ag-ui/encoder`). One request is one window onto the thread's durable run (thread.ts opens
 * it; this file parses the request and encodes the events):
 * - without `resume`, on a thread with no open run, a last user message starts the thread's run
 *   (or its next run) and the window tells it from its first event;
 * - without `resume`, on an open run, a new last user message is a person's words to it: it
 *   answers the open question, or waits for the next model turn (`run.send`, once per message
 *   id); CUSTOM `cairn.delivery` says which, and the window tells what followed;
 * - with `resume`, each entry goes to the run (its Update validators decide: stale arguments,
 *   an answer that does not fit the schema, a decision already taken are refused) and the
 *   window tells what followed;
 * - an act on a run that closed starts nothing: the client gets the run's final answer once
 *   (when the messages it sent do not hold it), else 409 `run_closed`.
 * What the client already has (its messages' ids and tool calls) is not sent again: a tool
 * call's START/ARGS/END go out once per thread. The window ends with RUN_FINISHED: outcome
 * `interrupt` while the run waits for a person, `cancelled` when a person cancelled it, `success`
 * when it finished; a run that failed ends the window with RUN_ERROR. Node-only.
 */
import { EventType, type Event as AgUiEvent, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { RunState } from '../../workflows/contract/index.js';
import { agUiWindowContext, flushAgUi, toAgUiEvents, toAgUiInterrupts } from './agui-events.js';
import { agentName, authorizedThread, body, startThread, type HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import { cancelInterrupt, resolveInterrupt } from './human-actions.js';
import { schemaOf } from './inbox.js';
import { parseInterruptId, pendingInterrupts } from './interrupts.js';
import { promptOf, textOf } from './prompt-of.js';
import { runScope, scopeEvent } from './run-scope.js';
import { runWindow } from './run-window.js';
import { sseResponse } from './sse.js';
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
  type Thread,
  type WindowStart,
} from './thread.js';

export async function agUiRun(ctx: HttpContext, request: Request): Promise<Response> {
  const parsed = RunAgentInputSchema.safeParse(await body(ctx, request));
  if (!parsed.success)
    throw new HttpError(
      422,
      'invalid_input',
      `Not a RunAgentInput: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
    );
  const input = parsed.data as RunAgentInput;
  const { workflowId } = await authorizedThread(ctx, request, 'agui', input.threadId);
  const had = seenIn(input.messages);
  const thread = await lookupThread(ctx, workflowId);
  const start = input.resume?.length
    ? await resume(ctx, thread, input, had)
    : await begin(ctx, request, thread, input, had);
  // Call and question ids carry their run: the thread's next run numbers its calls from 1.1 again.
  const scope = runScope(start.run.firstExecutionRunId ?? thread.firstRunId);
  const encoder = new EventEncoder({ accept: 'text/event-stream' });
  const schemaFor = (agent: string) => (tool: string) => schemaOf(ctx.agents, agent, tool).schema;
  const finished = (result: Record<string, unknown>, cancelled: boolean) => ({
    type: EventType.RUN_FINISHED,
    threadId: input.threadId,
    runId: input.runId,
    outcome: cancelled ? { type: 'cancelled' as const } : { type: 'success' as const },
    result,
  });
  return sseResponse(
    async function* (signal) {
      const frame = (event: AgUiEvent) => encoder.encodeSSE(event);
      yield frame({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId });
      if (start.closed) {
        // The closed run's final answer, which the client does not have yet.
        const id = start.closed.id;
        yield frame({ type: EventType.TEXT_MESSAGE_START, messageId: id, role: 'assistant' });
        yield frame({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: id, delta: start.closed.answer });
        yield frame({ type: EventType.TEXT_MESSAGE_END, messageId: id });
        yield frame(
          finished({ answer: start.closed.answer, runId: start.run.workflowId }, start.closed.cancelled) as AgUiEvent,
        );
        return;
      }
      if (start.delivery) yield frame({ type: EventType.CUSTOM, name: 'cairn.delivery', value: start.delivery });
      const context = agUiWindowContext(had);
      for await (const item of runWindow(start.run, start.from, signal, start.live)) {
        if (item.kind === 'event') {
          for (const event of toAgUiEvents(scopeEvent(item.event, scope), context)) yield frame(event);
          continue;
        }
        for (const event of flushAgUi(context)) yield frame(event);
        yield frame({ type: EventType.STATE_SNAPSHOT, snapshot: snapshot(start.run, item.state) });
        if (item.kind === 'waiting') {
          const interrupts = toAgUiInterrupts(pendingInterrupts(item.state, scope), schemaFor(item.state.agent));
          yield frame({
            type: EventType.RUN_FINISHED,
            threadId: input.threadId,
            runId: input.runId,
            outcome: { type: 'interrupt', interrupts },
          });
        } else
          yield frame(
            finished({ answer: item.state.answer, runId: start.run.workflowId }, context.cancelled) as AgUiEvent,
          );
      }
    },
    { 'content-type': encoder.getContentType() },
    {
      onError: async (error) => {
        const e = await windowFailure(ctx, start.run.workflowId, error);
        return encoder.encodeSSE({ type: EventType.RUN_ERROR, message: e.message, code: e.code });
      },
    },
  );
}

/** What the client has: its messages' ids, the tool calls they hold, and the assistant's texts. */
function seenIn(messages: RunAgentInput['messages']): Seen {
  const ids: string[] = [];
  const calls: string[] = [];
  const texts: string[] = [];
  for (const m of messages) {
    ids.push(m.id);
    const message = m as {
      role: string;
      content?: unknown;
      toolCalls?: readonly { id: string }[];
      toolCallId?: string;
    };
    for (const call of message.toolCalls ?? []) calls.push(call.id);
    if (message.role === 'tool' && message.toolCallId) calls.push(message.toolCallId);
    if (message.role === 'assistant') texts.push(textOf(message.content));
  }
  return seen(calls, ids, texts);
}

/** A request without `resume`: start the thread's (next) run, or give the open run the person's new words. */
async function begin(
  ctx: HttpContext,
  request: Request,
  thread: Thread,
  input: RunAgentInput,
  had: Seen,
): Promise<WindowStart> {
  const last = input.messages.at(-1);
  const said = last?.role === 'user' ? textOf((last as { content?: unknown }).content) : '';
  if (!isOpen(thread.status)) {
    if (thread.status !== 'NONE' && said === '') return closedOutcome(thread, had);
    const agent = agentName(ctx, ((input.forwardedProps ?? {}) as { agent?: unknown }).agent);
    const prompt = promptOf(
      input.messages.map((m) => ({ role: m.role, text: textOf((m as { content?: unknown }).content) })),
    );
    if (await startedWith(thread, prompt)) return closedOutcome(thread, had);
    return openWindow(ctx, thread.workflowId, 0, () =>
      ctx.gate.run(undefined, () => startThread(ctx, request, thread.workflowId, agent, prompt)),
    );
  }
  // The thread's first request again (a reconnect), or a client with nothing new to say.
  if (said === '' || input.messages.length === 1)
    return openWindow(ctx, thread.workflowId, had.messages.size > 1 ? 'now' : 0, async () => thread.run);
  return toThread(ctx, thread.run, said, `agui:${last!.id}`);
}

/** Hands each resume entry to the run, after noting where its stream stands: the window starts there. */
async function resume(ctx: HttpContext, thread: Thread, input: RunAgentInput, had: Seen): Promise<WindowStart> {
  const scope = runScope(thread.firstRunId);
  const targets = input.resume!.map((entry) => {
    const target = parseInterruptId(entry.interruptId, scope);
    if (!target)
      throw new HttpError(422, 'invalid_input', `Unknown interrupt id "${String(entry.interruptId).slice(0, 200)}".`);
    if (target === 'stale')
      throw new HttpError(
        409,
        'not_pending',
        `Interrupt "${String(entry.interruptId).slice(0, 200)}" belongs to an earlier run of this thread; the run now open has its own.`,
      );
    return { entry, target };
  });
  if (thread.status === 'NONE') throw new HttpError(404, 'unknown_run', `No run with id "${thread.workflowId}".`);
  if (!isOpen(thread.status)) return closedOutcome(thread, had);
  const run = thread.run;
  return openWindow(ctx, thread.workflowId, 'now', async () => {
    await actOn(ctx, run, async () => {
      for (const { entry, target } of targets) {
        if (entry.status === 'cancelled') await cancelInterrupt(run, target, 'Cancelled by the person asked.');
        else await resolveInterrupt(run, target, entry.payload);
      }
    });
    return run;
  });
}

/** The run's state as AG-UI state: small, and the stream offset to resume from. */
function snapshot(run: AgentRunHandle, state: RunState): Record<string, unknown> {
  return {
    runId: run.workflowId,
    agent: state.agent,
    phase: state.phase,
    paused: state.paused,
    turn: state.turn,
    toolCalls: state.toolCalls,
    disabledTools: state.disabledTools,
    lastErrors: state.lastErrors,
    answer: state.answer,
    generation: state.generation,
  };
}
