/**
 * OpenTelemetry for Cairn workers (docs/tracing.md): spans for the agentRun workflow, the
 * activities it schedules and runs (@temporalio/interceptors-opentelemetry's plugin), and the
 * durable timers, with Cairn's attributes (workflows/tracing-interceptors.ts in the workflow,
 * activities/tool-activity.ts and model-activity.ts on the worker). `createCairnWorker({ tracing })`
 * and `runCairnWorker` (OTEL_EXPORTER_OTLP_ENDPOINT) use it.
 *
 * Tracing is opt-in: the OpenTelemetry SDK, the interceptors package and the OTLP exporter are
 * optional peer dependencies, loaded here only when a worker traces; only the tiny
 * `@opentelemetry/api` (a no-op without an SDK) is a dependency of Cairn. Node-only.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { context, propagation, type Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { BasicTracerProvider, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkerPlugin, WorkflowBundleOption } from '@temporalio/worker';
import { TRACING_BUNDLE_MARKER } from '../workflows/tracing-interceptors.js';
import { PACKAGE_VERSION, RUNNING_FROM_SOURCE } from './package-root.js';

/**
 * How a worker traces: exactly one of `exporter`, `spanProcessor` or `tracerProvider`, objects of
 * the OpenTelemetry JS SDK 1.x (what @temporalio/interceptors-opentelemetry 1.24 uses). Typed by
 * what Cairn calls on them, so that Cairn's types name none of the optional OpenTelemetry
 * packages: a project that does not trace type-checks without them.
 */
export interface CairnTracingOptions {
  /** Where spans go (an OTLPTraceExporter, a ConsoleSpanExporter…). Batched; shut down with the worker. */
  readonly exporter?: TracingSpanExporter;
  /** Or how spans are processed (e.g. `new SimpleSpanProcessor(new InMemorySpanExporter())` in tests); flushed, not shut down, with the worker. */
  readonly spanProcessor?: TracingSpanProcessor;
  /** Or your own BasicTracerProvider / NodeTracerProvider: its span processors and resource are used; flushed, not shut down, with the worker. */
  readonly tracerProvider?: TracingTracerProvider;
  /** The service the spans come from (a `Resource`), with `exporter` or `spanProcessor`. Default: `service.name` cairn-worker, then OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. */
  readonly resource?: TracingResource;
}

/** An OpenTelemetry `SpanExporter`. */
export interface TracingSpanExporter {
  export(spans: readonly unknown[], resultCallback: (result: unknown) => void): void;
  shutdown(): Promise<void>;
}

/** An OpenTelemetry `SpanProcessor`. */
export interface TracingSpanProcessor {
  onStart(span: unknown, parentContext: unknown): void;
  onEnd(span: unknown): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** An OpenTelemetry SDK `BasicTracerProvider` (or `NodeTracerProvider`). */
export interface TracingTracerProvider {
  getTracer(name: string, version?: string): Tracer;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** An OpenTelemetry `Resource`. */
export interface TracingResource {
  readonly attributes: object;
}

/** What a worker needs to trace: the plugin, the modules its workflow bundle must include, and the end. */
export interface WorkerTracing {
  readonly plugin: WorkerPlugin;
  /** Workflow interceptor modules, in order: the bundle must include them (`tracingWorkflowModules`). */
  readonly workflowModules: readonly string[];
  readonly tracer: Tracer;
  /** Flushes what is buffered; shuts down what Cairn made. Called when the worker stops. */
  close(): Promise<void>;
}

/** What to install to trace (versions matching the Temporal SDK 1.24 and its OpenTelemetry SDK 1.x). */
export const TRACING_PACKAGES =
  '@temporalio/interceptors-opentelemetry@1.24.0 @opentelemetry/sdk-trace-base@1 @opentelemetry/resources@1 @opentelemetry/core@1 @opentelemetry/context-async-hooks@1';
const OTLP_PACKAGE = '@opentelemetry/exporter-trace-otlp-proto@0.57';

/** Loads an optional peer dependency, or says what to install. */
async function optional<T>(load: () => Promise<T>, install = TRACING_PACKAGES): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      `Tracing needs packages that are not installed (${(error as Error).message.split('\n')[0]}). Install them beside cairn-agents: npm install ${install}`,
    );
  }
}

/**
 * The workflow interceptor modules a tracing worker's bundle must include, in this order: the
 * OpenTelemetry interceptors, then Cairn's. For a prebuilt bundle:
 * `bundleWorkflows(path, { workflowInterceptorModules: tracingWorkflowModules() })`.
 */
export function tracingWorkflowModules(): string[] {
  let otel: string;
  try {
    otel = createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');
  } catch {
    throw new Error(
      `Tracing needs @temporalio/interceptors-opentelemetry. Install it beside cairn-agents: npm install ${TRACING_PACKAGES}`,
    );
  }
  return [
    otel,
    fileURLToPath(new URL(`../workflows/tracing-interceptors.${RUNNING_FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url)),
  ];
}

/** Throws unless `bundle` was made with `tracingWorkflowModules()` (else the workflow would make no spans). */
export async function checkTracingBundle(bundle: WorkflowBundleOption): Promise<void> {
  const code = 'code' in bundle ? bundle.code : await readFile(bundle.codePath, 'utf8');
  if (!code.includes(TRACING_BUNDLE_MARKER))
    throw new Error(
      'createCairnWorker: `tracing` is on, but `workflowBundle` was bundled without the tracing interceptors, so the workflow would make no spans. ' +
        'Bundle it with bundleWorkflows(path, { workflowInterceptorModules: tracingWorkflowModules() }), or pass `workflowsPath`.',
    );
}

/**
 * So that spans nest across the worker: an AsyncLocalStorage context manager (an activity's
 * `trace.getActiveSpan()` is its RunActivity span) and W3C trace-context propagation (a
 * RunActivity span is the child of the workflow's StartActivity span). Each only when none is
 * registered yet: an OpenTelemetry SDK you started first keeps its own.
 */
async function registerContext(): Promise<void> {
  const [{ AsyncLocalStorageContextManager }, core] = await Promise.all([
    optional(() => import('@opentelemetry/context-async-hooks')),
    optional(() => import('@opentelemetry/core')),
  ]);
  const manager = new AsyncLocalStorageContextManager();
  if (!context.setGlobalContextManager(manager.enable())) manager.disable();
  propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  );
}

/** Sets up tracing for one worker (createCairnWorker calls it when given `tracing`). */
export async function workerTracing(options: CairnTracingOptions): Promise<WorkerTracing> {
  const given = [options.exporter, options.spanProcessor, options.tracerProvider].filter((o) => o !== undefined).length;
  if (given !== 1)
    throw new Error(
      'createCairnWorker: `tracing` takes exactly one of `exporter`, `spanProcessor` or `tracerProvider`.',
    );
  const [{ OpenTelemetryPlugin }, sdk, resources] = await Promise.all([
    optional(() => import('@temporalio/interceptors-opentelemetry')),
    optional(() => import('@opentelemetry/sdk-trace-base')),
    optional(() => import('@opentelemetry/resources')),
  ]);
  // The SDK's own types inside (this file's declarations name only the structural ones above).
  let provider = options.tracerProvider as BasicTracerProvider | undefined;
  if (provider && !('activeSpanProcessor' in provider && 'resource' in provider))
    throw new Error(
      'createCairnWorker: `tracing.tracerProvider` must be a BasicTracerProvider or NodeTracerProvider of the OpenTelemetry JS SDK 1.x, which @temporalio/interceptors-opentelemetry 1.24 uses.',
    );
  if (!provider) {
    const resource =
      (options.resource as Resource | undefined) ??
      resources.Resource.default()
        .merge(new resources.Resource({ 'service.name': 'cairn-worker' }))
        .merge(resources.envDetectorSync.detect());
    provider = new sdk.BasicTracerProvider({ resource });
    provider.addSpanProcessor(
      (options.spanProcessor as SpanProcessor | undefined) ??
        new sdk.BatchSpanProcessor(options.exporter as SpanExporter),
    );
  }
  await registerContext();
  const tracer = provider.getTracer('cairn-agents', PACKAGE_VERSION);
  // Workflow spans are made in the sandbox and handed to the processor through a sink; activity spans by `tracer`.
  const plugin = new OpenTelemetryPlugin({
    resource: provider.resource as Resource,
    spanProcessor: provider.activeSpanProcessor,
    tracer,
  });
  const owned = options.exporter !== undefined ? provider : undefined;
  const used = provider;
  return {
    plugin,
    workflowModules: tracingWorkflowModules(),
    tracer,
    close: () => (owned ? owned.shutdown() : used.forceFlush()),
  };
}

/**
 * Tracing as the OpenTelemetry environment variables describe it, for `cairn worker`, `cairn dev`
 * and `runCairnWorker`: an OTLP exporter (http/protobuf) when OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER
 * names no `otlp` (e.g. `none`). Headers (OTEL_EXPORTER_OTLP_HEADERS), timeouts and the resource
 * (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) are read by OpenTelemetry itself. Undefined when
 * nothing asks for tracing.
 */
export async function tracingFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): Promise<CairnTracingOptions | undefined> {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!tracesEndpoint && !endpoint) return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (exporters.length > 0 && !exporters.includes('otlp')) return undefined;
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (protocol !== 'http/protobuf')
    throw new Error(
      `Cairn exports traces over OTLP http/protobuf, and the environment asks for ${protocol} (OTEL_EXPORTER_OTLP_PROTOCOL). ` +
        'Unset it, or create the exporter yourself and pass it: createCairnWorker({ tracing: { exporter } }).',
    );
  const { OTLPTraceExporter } = await optional(
    () => import('@opentelemetry/exporter-trace-otlp-proto'),
    `${TRACING_PACKAGES} ${OTLP_PACKAGE}`,
  );
  // The signal's own endpoint is used as it is; the general one gets the traces path (the OTLP spec).
  const url = tracesEndpoint || `${endpoint!.replace(/\/+$/, '')}/v1/traces`;
  return { exporter: new OTLPTraceExporter({ url }) };
}
