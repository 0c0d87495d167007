/**
 * OpenTelemetry, end to end on the real dev server: a worker created with `tracing` (an in-memory
 * exporter) and a bundle with the tracing interceptors runs a scripted agent whose tool is
 * rate-limited twice (two back-offs) and whose second tool is down (disabled). The spans tell the
 * story: one trace, RunWorkflow:agentRun at its root, StartActivity/RunActivity for every model
 * turn and tool call, the failures with their code and retry reason, the back-offs as timers, the
 * disable and the finish as planner events, the tokens of each turn.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ModelClient } from '../activities/model/model-client.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import {
  checkTracingBundle,
  tracingFromEnvironment,
  tracingWorkflowModules,
  workerTracing,
} from '../runtime/tracing.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { repairLastCalls } from '../testing/script-repairs.js';
import { scriptStep } from '../testing/script-steps.js';
import { calls } from './fixtures/tools.js';
import { answerClarificationUpdate } from '../workflows/contract/index.js';
import { awaiting } from './support/runs.js';
import { recordHistory } from './support/histories.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

const exporter = new InMemorySpanExporter();
let w: TestWorker;
let bundleCode: string;

beforeAll(async () => {
  const bundle = await bundleWorkflows(join(PACKAGE_ROOT, 'test/fixtures/workflows.ts'), {
    workflowInterceptorModules: tracingWorkflowModules(),
  });
  bundleCode = bundle.code;
  // Simple, not batched: a span is in the exporter as soon as it ends.
  w = await startTestWorker({
    tracing: { spanProcessor: new SimpleSpanProcessor(exporter) },
    workflowBundle: { code: bundle.code },
  });
});
afterAll(() => w?.stop());

/** Waits until the spans of `workflowId` include its root (the run's RunWorkflow span ends last). */
async function traceOf(workflowId: string): Promise<ReadableSpan[]> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    // Workflow spans carry the workflow's info (workflowId, runId…); activity spans temporalWorkflowId.
    const root = exporter
      .getFinishedSpans()
      .find((s) => s.name === 'RunWorkflow:agentRun' && s.attributes.workflowId === workflowId);
    if (root) return exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === root.spanContext().traceId);
  }
  throw new Error(`No RunWorkflow span for ${workflowId}`);
}

const childrenOf = (spans: readonly ReadableSpan[], parent: ReadableSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanContext().spanId);
const plannerEvents = (span: ReadableSpan) =>
  span.events.filter((e) => e.name === 'cairn.planner').map((e) => e.attributes?.['cairn.planner.action']);

describe('tracing a run', () => {
  it('tells a run with a rate-limited tool, two back-offs and a disabled tool as one trace', async () => {
    calls.track_shipment = 0;
    const { model, scripted } = w.script([
      scriptStep.call('track_shipment', { orderId: 'A-1' }),
      scriptStep.call('carrier_status', {}),
      scriptStep.text('On its way.'),
    ]);
    // The scripted model, reporting token usage as providers do.
    const generate: ModelClient['generate'] = scripted.generate.bind(scripted);
    scripted.generate = async (input) => {
      const outcome = await generate(input);
      return outcome.status === 'ok' && outcome.response
        ? { ...outcome, response: { ...outcome.response, usage: { inputTokens: 120, outputTokens: 8 } } }
        : outcome;
    };
    const handle = await w.start({ agent: 'test', prompt: 'track A-1', model });
    expect((await handle.result()).answer).toBe('On its way.');

    const spans = await traceOf(handle.workflowId);
    // One trace, rooted in the workflow run (the client that started it does not trace).
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => s.name)).toEqual(['RunWorkflow:agentRun']);
    const root = roots[0]!;
    expect(root.attributes).toMatchObject({
      'cairn.agent': 'test',
      'cairn.model': model,
      'cairn.turns': 3,
      'cairn.tool_calls': 2,
      workflowId: handle.workflowId,
    });
    expect(plannerEvents(root)).toEqual(['finish']);
    expect(root.resource.attributes['service.name']).toBe('cairn-worker');

    // Under the root, in order: model, tool (limited), back-off, tool (limited), back-off, tool, model, tool (down), model.
    const steps = childrenOf(spans, root).sort(
      (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
    );
    expect(steps.map((s) => s.name)).toEqual([
      'StartActivity:callModel',
      'StartActivity:runTool',
      'Timer:back_off',
      'StartActivity:runTool',
      'Timer:back_off',
      'StartActivity:runTool',
      'StartActivity:callModel',
      'StartActivity:runTool',
      'StartActivity:callModel',
    ]);
    // Every StartActivity has exactly one RunActivity (no Temporal retries here), on the worker.
    const runs = steps
      .filter((s) => s.name.startsWith('StartActivity'))
      .map((start) => {
        const children = childrenOf(spans, start);
        expect(children.map((c) => c.name)).toEqual([start.name.replace('StartActivity', 'RunActivity')]);
        return children[0]!;
      });
    expect(
      runs.every((r) => r.kind === SpanKind.INTERNAL && r.attributes.temporalWorkflowId === handle.workflowId),
    ).toBe(true);

    // The tool spans: two rate-limited attempts, then the result; then the tool that is down.
    const tools = runs.filter((r) => r.name === 'RunActivity:runTool');
    expect(
      tools.map((t) => [
        t.attributes['cairn.tool'],
        t.attributes['cairn.result.status'],
        t.attributes['cairn.failure.code'],
        t.attributes['cairn.retry.reason'],
      ]),
    ).toEqual([
      ['track_shipment', 'error', 'rate_limited', 'rate_limited'],
      ['track_shipment', 'error', 'rate_limited', 'rate_limited'],
      ['track_shipment', 'ok', undefined, undefined],
      ['carrier_status', 'error', 'tool_unavailable', 'tool_unavailable'],
    ]);
    expect(tools[0]!.attributes).toMatchObject({
      'cairn.retry.after_ms': 150,
      'cairn.tool_call_id': expect.any(String),
    });
    expect(steps[1]!.attributes).toMatchObject({
      'cairn.tool': 'track_shipment',
      'cairn.summary': expect.stringContaining('track_shipment orderId=A-1'),
    });
    // The same call each time: the planner re-ran it after the back-off, without a model turn.
    expect(new Set(tools.slice(0, 3).map((t) => t.attributes['cairn.tool_call_id'])).size).toBe(1);

    // The back-offs: durable timers with the planner's reason, each of the retry-after at least.
    const timers = steps.filter((s) => s.name === 'Timer:back_off');
    for (const timer of timers) {
      expect(timer.attributes).toMatchObject({
        'cairn.planner.action': 'back_off',
        'cairn.timer.fired': true,
        'cairn.timer.summary': expect.stringMatching(/track_shipment: rate limited/),
      });
      expect(timer.attributes['cairn.timer.duration_ms']).toBeGreaterThanOrEqual(150);
    }

    // The model turns: the model, the tokens, the tool calls; the disable announced on the turn after it.
    const models = runs.filter((r) => r.name === 'RunActivity:callModel');
    expect(
      models.map((m) => [
        m.attributes['cairn.model'],
        m.attributes['cairn.tool_calls'],
        m.attributes['cairn.tokens.input'],
        m.attributes['cairn.tokens.output'],
      ]),
    ).toEqual([
      [model, 1, 120, 8],
      [model, 1, 120, 8],
      [model, 0, 120, 8],
    ]);
    const turns = steps.filter((s) => s.name === 'StartActivity:callModel');
    expect(turns.map((t) => t.attributes['cairn.planner.action'])).toEqual(['model', 'model', 'model']);
    expect(turns.map(plannerEvents)).toEqual([[], [], ['disable']]);
    expect(turns[2]!.events[0]!.attributes).toMatchObject({ 'cairn.tool': 'carrier_status' });
    expect(turns[2]!.attributes['cairn.tools']).not.toContain('carrier_status');

    // Tracing adds no command: the run replays on the bundle without the tracing interceptors.
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') } },
      await handle.fetchHistory(),
      handle.workflowId,
    );
  });

  it('marks a repair turn: the model restricted to the tool whose call it fixes', async () => {
    const { model } = w.script([
      scriptStep.call('search_orders', { status: 'shipping' }),
      repairLastCalls(),
      scriptStep.react(() => scriptStep.call('search_orders', { status: 'shipped', page: 2 })),
      scriptStep.text('Found them.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'shipped orders?', model });
    await handle.result();
    const spans = await traceOf(handle.workflowId);
    const turns = spans
      .filter((s) => s.name === 'StartActivity:callModel')
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    // The invalid call never ran: the planner sent it back to the model, restricted to search_orders.
    expect(turns.map((t) => t.attributes['cairn.planner.action'])).toEqual(['model', 'repair', 'model', 'model']);
    expect(turns[1]!.attributes['cairn.tool_choice']).toBe('search_orders');
    expect(turns.map(plannerEvents)).toEqual([[], ['repair'], [], []]);
  });

  it('joins the trace of a client that traces: the run is the child of its StartWorkflow span', async () => {
    const backend = new BasicTracerProvider();
    backend.addSpanProcessor(new SimpleSpanProcessor(exporter));
    const client = new Client({
      connection: w.client.connection,
      interceptors: {
        workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer: backend.getTracer('backend') })],
      },
    });
    const { model } = w.script([scriptStep.text('Hello.')]);
    const handle = await client.workflow.start('agentRun', {
      taskQueue: w.taskQueue,
      workflowId: `trace-${randomUUID()}`,
      args: [{ agent: 'test', prompt: 'hi', model }],
    });
    await handle.result();
    const spans = await traceOf(handle.workflowId);
    const start = spans.find((s) => s.name === 'StartWorkflow:agentRun')!;
    expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(['StartWorkflow:agentRun']);
    expect(spans.find((s) => s.name === 'RunWorkflow:agentRun')!.parentSpanId).toBe(start.spanContext().spanId);
    expect(spans.map((s) => s.name).sort()).toEqual([
      'RunActivity:callModel',
      'RunWorkflow:agentRun',
      'StartActivity:callModel',
      'StartWorkflow:agentRun',
    ]);
  });

  it('refuses a prebuilt bundle without the tracing interceptors, and reads OTLP settings from the environment', async () => {
    await expect(checkTracingBundle({ code: bundleCode })).resolves.toBeUndefined();
    await expect(checkTracingBundle({ code: '/* a bundle */' })).rejects.toThrow(
      /bundled without the tracing interceptors/,
    );
    await expect(workerTracing({})).rejects.toThrow(/exactly one of/);

    expect(await tracingFromEnvironment({})).toBeUndefined();
    expect(
      await tracingFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBeUndefined();
    expect(
      await tracingFromEnvironment({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_TRACES_EXPORTER: 'none',
      }),
    ).toBeUndefined();
    await expect(
      tracingFromEnvironment({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).rejects.toThrow(/http\/protobuf/);

    // An OTLP collector stand-in: the exporter posts protobuf to <endpoint>/v1/traces, or to the traces endpoint as given.
    const received: { path: string; type: string; bytes: number }[] = [];
    const collector = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => void (bytes += chunk.length));
      req.on('end', () => {
        received.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', bytes });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    try {
      for (const env of [
        { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/` },
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://unused:1',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/custom`,
        },
      ]) {
        const tracing = await tracingFromEnvironment(env);
        const provider = new BasicTracerProvider();
        provider.addSpanProcessor(new SimpleSpanProcessor(tracing!.exporter as SpanExporter)); // Cairn types it structurally (runtime/tracing.ts)
        provider.getTracer('test').startSpan('probe').end();
        await provider.shutdown();
      }
    } finally {
      collector.close();
    }
    expect(received.map((r) => [r.path, r.type])).toEqual([
      ['/v1/traces', 'application/x-protobuf'],
      ['/custom', 'application/x-protobuf'],
    ]);
    expect(received.every((r) => r.bytes > 0)).toBe(true);
  });
});

describe('tracing turned on or off in a rolling deploy', () => {
  /** Asks for the delivery window, takes the answer by Update, schedules, answers. */
  const askedRun = async (worker: TestWorker) => {
    const { model } = worker.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
      scriptStep.react(() => scriptStep.call('schedule_redelivery', { orderId: 'A-1', window: 'afternoon' })),
      scriptStep.text('Scheduled.'),
    ]);
    // Search attributes on: the phase upserts are what an Update's completion raced.
    const handle = await worker.start({ agent: 'test', prompt: 'Redeliver A-1.', model, searchAttributes: true });
    await awaiting(handle, 'awaiting_clarification');
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: 'q1', answer: 'afternoon please' }] });
    expect((await handle.result()).answer).toBe('Scheduled.');
    return handle;
  };

  it('a run whose Update a tracing worker took replays on a worker without tracing', async () => {
    const handle = await askedRun(w);
    await recordHistory(handle, 'traced-clarification-update'); // replayed without tracing in test/replay.test.ts
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') } },
      await handle.fetchHistory(),
      handle.workflowId,
    );
  });

  it('a run whose Update a worker without tracing took replays on a tracing worker', async () => {
    const plain = await startTestWorker();
    try {
      const handle = await askedRun(plain);
      await Worker.runReplayHistory(
        { workflowBundle: { code: bundleCode } },
        await handle.fetchHistory(),
        handle.workflowId,
      );
    } finally {
      await plain.stop();
    }
  });
});
