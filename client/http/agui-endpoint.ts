/**
 * AG-UI on the handler: a POST of `RunAgentInput` answered by an SSE stream of AG-UI events
 * (`@ag-ui/encoder`). One request is one window onto the thread's durable run: a request without
 * `resume` starts the thread's run (or finds it) and tells it from its first event; a request with
 * `resume` hands each entry to the run (the workflow validates it: stale arguments are refused, a
 * repeat is a no-op) and tells what followed. The window ends with RUN_FINISHED: outcome
 * `interrupt` while the run waits for a person, `success` when it finished. A request without
 * `resume` whose last message is a new user message, on a thread whose run is working (waiting
 * for nobody), hands that message to the run (`run.send`, as `POST /runs/:id/messages`), once per
 * message id, and tells what followed. Node-only.
 */
import { EventType, type Event as AgUiEvent, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import type { AgentRunHandle } from '../agent-run-handle.js';
import type { RunState } from '../../workflows/messages.js';
import { agUiWindowContext, flushAgUi, toAgUiEvents, toAgUiInterrupts } from './agui-events.js';
import { agentName, authorized, body, startThread, type HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import { cancelInterrupt, resolveInterrupt } from './human-actions.js';
import { schemaOf } from './inbox.js';
import { parseInterruptId, pendingInterrupts } from './interrupts.js';
import { deliverMessage } from './user-message.js';
import { promptOf, textOf } from './prompt-of.js';
import { runError } from './run-errors.js';
import { liveFromNow, runWindow, type LiveFeed } from './run-window.js';
import { sseResponse } from './sse.js';
import { workflowIdOf } from './thread-ids.js';

export async function agUiRun(ctx: HttpContext, request: Request): Promise<Response> {
  const parsed = RunAgentInputSchema.safeParse(await body(ctx, request));
  if (!parsed.success) throw new HttpError(422, 'invalid_input', `Not a RunAgentInput: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  const input = parsed.data as RunAgentInput;
  const workflowId = workflowIdOf(input.threadId, ctx.threadPrefix);
  await authorized(ctx, request, 'agui', workflowId);
  const { run, from, live } = input.resume?.length ? await resume(ctx, workflowId, input) : await begin(ctx, request, workflowId, input);
  const encoder = new EventEncoder({ accept: 'text/event-stream' });
  const schemaFor = (agent: string) => (tool: string) => schemaOf(ctx.agents, agent, tool).schema;
  return sseResponse(
    async function* (signal) {
      const frame = (event: AgUiEvent) => encoder.encodeSSE(event);
      yield frame({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId });
      const context = agUiWindowContext();
      for await (const item of runWindow(run, from, signal, live)) {
        if (item.kind === 'event') {
          for (const event of toAgUiEvents(item.event, context)) yield frame(event);
          continue;
        }
        for (const event of flushAgUi(context)) yield frame(event);
        yield frame({ type: EventType.STATE_SNAPSHOT, snapshot: snapshot(run, item.state) });
        const outcome =
          item.kind === 'waiting'
            ? { type: 'interrupt' as const, interrupts: toAgUiInterrupts(pendingInterrupts(item.state), schemaFor(item.state.agent)) }
            : { type: 'success' as const };
        yield frame({
          type: EventType.RUN_FINISHED,
          threadId: input.threadId,
          runId: input.runId,
          outcome,
          ...(item.kind === 'finished' && { result: { answer: item.state.answer, runId: run.workflowId } }),
        });
      }
    },
    { 'content-type': encoder.getContentType() },
    {
      onError: (error) => {
        const e = runError(error, run.workflowId);
        if (e.status >= 500) ctx.onError(error);
        return encoder.encodeSSE({ type: EventType.RUN_ERROR, message: e.message, code: e.code });
      },
    },
  );
}

/** A window's start: the run, its offset, and the live events written since (with a live source). */
interface WindowStart {
  readonly run: AgentRunHandle;
  readonly from: number;
  readonly live?: LiveFeed | undefined;
}

async function begin(ctx: HttpContext, request: Request, workflowId: string, input: RunAgentInput): Promise<WindowStart> {
  const last = input.messages.at(-1);
  if (input.messages.length > 1 && last?.role === 'user') {
    const sent = await toWorkingRun(ctx, workflowId, last);
    if (sent) return sent;
  }
  const forwarded = (input.forwardedProps ?? {}) as { agent?: unknown };
  const agent = agentName(ctx, forwarded.agent);
  const prompt = promptOf(input.messages.map((m) => ({ role: m.role, text: textOf((m as { content?: unknown }).content) })));
  const live = await liveFromNow(ctx.live, workflowId);
  const run = await ctx.gate.run(undefined, () => startThread(ctx, request, workflowId, agent, prompt));
  return { run, from: 0, live };
}

/**
 * Hands a new user message to the thread's run when it works and waits for nobody; the window
 * starts where its stream stood. The message id is the send's update id: a request repeated (a
 * reconnect) never delivers it twice. Undefined when there is no working run to tell.
 */
async function toWorkingRun(ctx: HttpContext, workflowId: string, message: RunAgentInput['messages'][number]): Promise<WindowStart | undefined> {
  const run = ctx.client.run(workflowId);
  return ctx.gate.run(workflowId, async () => {
    const status = await run.workflow.describe().then((d) => d.status.name, (error) => ((error as Error).name === 'WorkflowNotFoundError' ? 'NONE' : Promise.reject(runError(error, workflowId))));
    if (status !== 'RUNNING') return undefined;
    const state = await run.state().catch(() => undefined);
    if (!state || state.phase === 'done' || pendingInterrupts(state).length > 0) return undefined;
    const from = await run.offset();
    const live = await liveFromNow(ctx.live, workflowId);
    await deliverMessage(run, textOf((message as { content?: unknown }).content), `agui:${message.id}`);
    return { run, from, live };
  });
}

/** Hands each resume entry to the run, after noting where its stream stands: the window starts there. */
async function resume(ctx: HttpContext, workflowId: string, input: RunAgentInput): Promise<WindowStart> {
  const run = ctx.client.run(workflowId);
  const targets = input.resume!.map((entry) => {
    const target = parseInterruptId(entry.interruptId);
    if (!target) throw new HttpError(422, 'invalid_input', `Unknown interrupt id "${String(entry.interruptId).slice(0, 200)}".`);
    return { entry, target };
  });
  return ctx.gate.run(workflowId, async () => {
    const from = await run.offset().catch((error) => Promise.reject(runError(error, workflowId)));
    const live = await liveFromNow(ctx.live, workflowId);
    for (const { entry, target } of targets) {
      try {
        if (entry.status === 'cancelled') await cancelInterrupt(run, target, 'Cancelled by the person asked.');
        else await resolveInterrupt(run, target, entry.payload);
      } catch (error) {
        throw runError(error, workflowId);
      }
    }
    return { run, from, live };
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
