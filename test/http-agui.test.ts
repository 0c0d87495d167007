/**
 * People reach a run over HTTP with AG-UI: the real `@ag-ui/client` HttpAgent drives a run on a
 * real dev server through the handler. The clarification and the review are answered in later
 * requests through a second handler instance with its own Temporal client; the run repairs a
 * call, backs off, hands over (continue-as-new) and completes; the side-effecting tool runs once;
 * the run's SSE stream, dropped mid-run, resumes on the other instance with Last-Event-ID.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAgent, type BaseEvent, type RunFinishedEvent } from '@ag-ui/client';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
import { serve, sseMessages, type Served } from './support/http.js';
import { connectClient, startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let one: Served;
let two: Served;
let model = '';
const secondClients: CairnClient[] = [];

function handlerOn(client: CairnClient) {
  return createCairnHttpHandler({
    client,
    agents: [testAgent],
    startOptions: () => ({ model, continueAsNewAfterTurns: 3, temporal: { workflowExecutionTimeout: '2m' } }),
  });
}

beforeAll(async () => {
  w = await startTestWorker();
  one = await serve(handlerOn(new CairnClient({ client: w.client, taskQueue: w.taskQueue })));
  // The second instance: a handler object of its own, on a Temporal connection of its own.
  const other = new CairnClient({ client: await connectClient(), taskQueue: w.taskQueue });
  secondClients.push(other);
  two = await serve(handlerOn(other));
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  for (const c of secondClients) await c.close();
  await w?.stop();
});

/** Runs the agent once, keeping every event it saw. */
async function runOnce(agent: HttpAgent, resume?: Parameters<HttpAgent['runAgent']>[0]) {
  const events: BaseEvent[] = [];
  await agent.runAgent(resume, { onEvent: ({ event }) => void events.push(event) });
  const finished = events.at(-1) as RunFinishedEvent;
  expect(finished.type).toBe('RUN_FINISHED');
  return { events, finished };
}

describe('AG-UI over the HTTP handler', () => {
  it('a repair, a back-off, a clarification and a review answered in later requests on another instance; the run completes', async () => {
    ({ model } = w.script([
      scriptStep.call('lookup_order', { orderId: 'nope' }), // refused by the workflow: repair
      scriptStep.call('track_shipment', { orderId: 'A-1001' }), // rate limited twice: back-off
      scriptStep.call('schedule_redelivery', { orderId: 'A-1001' }), // no window: a question
      scriptStep.call('schedule_redelivery', { orderId: 'A-1001', window: 'morning' }),
      scriptStep.call('issue_refund', { orderId: 'A-1001', amount: 80 }), // over 50: a review
      scriptStep.text('Refunded 80 on A-1001; redelivery in the morning.'),
    ]));
    const threadId = `t-${randomUUID()}`;
    const refundsBefore = calls.issue_refund ?? 0;
    const agent = new HttpAgent({
      url: `${one.url}/agui`,
      threadId,
      initialMessages: [{ id: 'u1', role: 'user', content: 'A-1001 is late: track it, redeliver, refund 80.' }],
    });

    // A watcher on the first instance reads the run's SSE stream, then its connection drops.
    const firstRequest = runOnce(agent);
    const workflowId = `cairn-thread-${threadId}`;
    const early: { id: number; type: string }[] = [];
    {
      let response: Response;
      for (;;) {
        response = await fetch(`${one.url}/runs/${encodeURIComponent(workflowId)}/events`);
        if (response.status === 200) break;
        expect(response.status).toBe(404); // not started yet
        await response.body?.cancel();
      }
      for await (const m of sseMessages(response)) {
        early.push({ id: Number(m.id), type: JSON.parse(m.data).type });
        if (early.length === 4) break; // dropped: the reader is cancelled
      }
    }

    // Request 1: the run repairs, backs off, then asks; the window ends with an interrupt.
    const first = await firstRequest;
    expect(first.finished.outcome).toMatchObject({
      type: 'interrupt',
      interrupts: [{ reason: 'input_required', message: 'Which delivery window suits you: morning or afternoon?' }],
    });
    const results = first.events
      .filter((e) => e.type === 'TOOL_CALL_RESULT')
      .map((e) => JSON.parse((e as unknown as { content: string }).content));
    expect(results[0]).toMatchObject({
      status: 'error',
      error: { code: 'invalid_arguments' },
      retryHint: { tool: 'lookup_order', exampleInput: { orderId: 'A-1001' } },
    });
    const steps = first.events
      .filter((e) => e.type === 'STEP_STARTED')
      .map((e) => (e as unknown as { stepName: string }).stepName);
    expect(steps).toEqual(expect.arrayContaining(['repair', 'back_off', 'clarify']));
    expect(first.events.some((e) => e.type === 'STATE_SNAPSHOT')).toBe(true);
    expect(agent.pendingInterrupts).toHaveLength(1);
    const question = agent.pendingInterrupts[0]!;

    // Request 2, on the second instance: the answer; the window ends at the review.
    const second = agent.clone() as HttpAgent;
    second.url = `${two.url}/agui`;
    const answered = await runOnce(second, {
      resume: [{ interruptId: question.id, status: 'resolved', payload: { answer: 'morning' } }],
    });
    expect(answered.finished.outcome).toMatchObject({
      type: 'interrupt',
      interrupts: [{ reason: 'tool_approval', toolCallId: expect.any(String) }],
    });
    const review = second.pendingInterrupts[0]!;
    expect(review.id).toMatch(/^review:.+:.+$/);
    expect(review.metadata).toMatchObject({ tool: 'issue_refund', args: { orderId: 'A-1001', amount: 80 } });
    // The question's window tells only what followed the answer: no repeat of the first window.
    expect(
      answered.events
        .filter((e) => e.type === 'STEP_STARTED')
        .map((e) => (e as unknown as { stepName: string }).stepName),
    ).not.toContain('repair');

    // A decision about other arguments (a stale hash) is refused by the run; nothing changes.
    const stale = await fetch(`${two.url}/agui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId,
        runId: 'r-stale',
        messages: [],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
        resume: [{ interruptId: `review:${review.toolCallId}:0000`, status: 'resolved' }],
      }),
    });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe('stale_review');

    // Request 3, on the second instance again (a third request): accept; the run finishes.
    const third = second.clone() as HttpAgent;
    const accepted = await runOnce(third, {
      resume: [{ interruptId: review.id, status: 'resolved', payload: { type: 'accept' } }],
    });
    expect(accepted.finished.outcome).toMatchObject({ type: 'success' });
    expect(accepted.finished.result).toMatchObject({ answer: 'Refunded 80 on A-1001; redelivery in the morning.' });
    expect(
      third.messages.some(
        (m) => m.role === 'assistant' && m.content === 'Refunded 80 on A-1001; redelivery in the morning.',
      ),
    ).toBe(true);
    expect(calls.issue_refund! - refundsBefore).toBe(1);

    // The dropped watcher resumes on the other instance: everything after its last id, nothing twice.
    const lastSeen = early.at(-1)!.id;
    const rest: { id: number; type: string }[] = [];
    const resumed = await fetch(`${two.url}/runs/${encodeURIComponent(workflowId)}/events`, {
      headers: { 'last-event-id': String(lastSeen) },
    });
    for await (const m of sseMessages(resumed)) {
      if (m.event === 'end') break;
      rest.push({ id: Number(m.id), type: JSON.parse(m.data).type });
    }
    const all = [...early, ...rest];
    expect(all.map((e) => e.id)).toEqual(all.map((_, i) => i));
    expect(all.some((e) => e.type === 'hand_over')).toBe(true);
    expect(all.at(-1)!.type).toBe('finish');
    // A finished run read from past its end: 204, so an EventSource stops reconnecting.
    const after = await fetch(`${one.url}/runs/${encodeURIComponent(workflowId)}/events`, {
      headers: { 'last-event-id': String(all.at(-1)!.id) },
    });
    expect(after.status).toBe(204);
  });

  it('SSE clients of one run share one subscription per instance: fifty watchers, a handful of polls', async () => {
    ({ model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-9' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-9', window: 'afternoon' }),
      scriptStep.text('Booked.'),
    ]));
    const threadId = `fan-${randomUUID()}`;
    const started = await fetch(`${one.url}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Redeliver A-9.', threadId }),
    });
    const { runId } = (await started.json()) as { runId: string };
    const watch = async () => {
      const seen: number[] = [];
      for await (const m of sseMessages(await fetch(`${one.url}/runs/${encodeURIComponent(runId)}/events`))) {
        if (m.event === 'end') break;
        seen.push(Number(m.id));
      }
      return seen;
    };
    const watchers = Array.from({ length: 50 }, watch);
    const asked = (await (await fetch(`${one.url}/runs/${encodeURIComponent(runId)}`)).json()) as {
      state: { clarification: { id: string } | null } | null;
    };
    let state = asked.state;
    while (!state?.clarification)
      state = ((await (await fetch(`${one.url}/runs/${encodeURIComponent(runId)}`)).json()) as typeof asked).state;
    expect(
      (
        await fetch(`${one.url}/runs/${encodeURIComponent(runId)}/answer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ answer: 'afternoon' }),
        })
      ).status,
    ).toBe(200);
    const seen = await Promise.all(watchers);
    for (const s of seen) expect(s).toEqual(seen[0]);
    expect(seen[0]!.length).toBeGreaterThan(5);
    const polls = ((await w.client.workflow.getHandle(runId).fetchHistory()).events ?? []).filter(
      (e) =>
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ===
        '__temporal_workflow_stream_poll',
    );
    // One subscription reads the run: about one poll per batch of events, not fifty.
    expect(polls.length).toBeLessThan(seen[0]!.length + 5);
  });
});
