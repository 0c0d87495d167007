/**
 * A Cairn worker: the agentRun workflow (from your workflows file or a prebuilt bundle), the tool
 * activity over your agents' tools with your `deps`, and the model activity. Node-only.
 */
import { Client } from '@temporalio/client';
import {
  Worker,
  type InjectedSinks,
  type NativeConnection,
  type WorkerOptions,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import { reachableAgents, type Agent } from '../shared/agent/define-agent.js';
import { DefinitionError } from '../shared/failures/definition-error.js';
import { missingNeeds } from '../shared/tools/tool-needs.js';
import type { AnyTool } from '../shared/tools/define-tool.js';
import { a2aAgentOf } from '../shared/tools/a2a-agent.js';
import { createToolActivities, type ToolActivityOptions } from '../activities/tool-activity.js';
import { createReconcileActivities } from '../activities/reconcile-activity.js';
import { createStatusPushActivities } from '../activities/status-push-activity.js';
import { createModelActivities, type ModelActivityOptions } from '../activities/model-activity.js';
import { TranscriptReader } from '../activities/transcript-reader.js';
import { runStorePayloads } from '../activities/storage/run-store-payloads.js';
import type { RunStore } from '../shared/storage/run-store.js';
import { createWorkspacePreviewActivities } from '../activities/workspace/workspace-preview.js';
import {
  workspaceRuntime,
  type WorkspaceRuntime,
  type WorkspaceRuntimeOptions,
} from '../activities/workspace/workspace-runtime.js';
import { TRANSCRIPT_SINK, type TranscriptMessage, type TranscriptSinkCalls } from '../shared/model/transcript.js';
import { loadMcpSdk, McpConnections } from '../activities/mcp-connections.js';
import { FEATURE_PEERS, requirePeers } from '../shared/optional-peers.js';
import { createMcpActivities } from '../activities/mcp-activity.js';
import type { ModelClient } from '../activities/model/model-client.js';
import { resolveModel, type ResolveModelOptions } from '../activities/model/resolve-model.js';
import { redisFlowControl } from '../activities/model/flow-control.js';
import { redisTenantBudgets } from '../activities/model/tenant-budgets.js';
import { DEFAULT_TASK_QUEUE } from './temporal-target.js';
import { bundleWorkflows } from './workflow-bundle.js';
import { checkWorkflowBundle } from './workflow-bundle-check.js';
import type { CairnTracingOptions } from './tracing.js';
import { bundleBuildId, versioningOptions, type WorkerVersioning } from './worker-versioning.js';

/** Temporal Worker options Cairn passes through untouched (tuning, interceptors, data converter…). */
export type WorkerTuning = Omit<
  WorkerOptions,
  'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle' | 'bundlerOptions'
>;

export interface CairnWorkerOptions {
  readonly connection: NativeConnection;
  /** Used by the model activity to read a run's transcript. Default: a client on `connection` with `worker.dataConverter`. */
  readonly client?: Client;
  readonly namespace?: string;
  /** Default `cairn`, the task queue the CLI and `cairn-agents/client` use. */
  readonly taskQueue?: string;
  /** The agents this worker runs; the tool activity serves their tools. The workflow bundle must define the same agents. */
  readonly agents: readonly Agent[];
  /** Side-effecting dependencies handed to every tool's `execute` as `context.deps`. */
  readonly deps?: unknown;
  /** How model specs resolve: extra AI SDK `providers`, `scripts` for `scripted:<name>`, `env` for keys. */
  readonly models?: ResolveModelOptions;
  /** Resolves model specs yourself instead (throw ModelConfigError for an unknown one). Not with `models`. */
  readonly resolveModel?: (spec: string) => ModelClient;
  /** A file that exports `agentRun = defineAgentRun(agents)`; bundled when the worker is created. */
  readonly workflowsPath?: string;
  /** Or a bundle made beforehand (`bundleWorkflows`), which starts workers faster. */
  readonly workflowBundle?: WorkflowBundleOption;
  /** Tool result size limits, offloading to a PayloadStore, heartbeat interval (docs/size-limits.md). */
  readonly toolActivity?: ToolActivityOptions;
  /**
   * The run store this fleet's workers share (docs/cluster.md): runs write their transcripts to it, so a
   * model turn on any worker reads them without a workflow Query, and oversize tool results go there
   * (unless `toolActivity.payloadStore` is set). `postgresRunStore`, `redisRunStore` or `fileRunStore`.
   * Without one, a model turn on a worker that did not run the run's last workflow task Queries it.
   */
  readonly store?: RunStore;
  /** Bounds on model replies and the model activity's heartbeat interval (docs/size-limits.md). */
  readonly modelActivity?: Pick<ModelActivityOptions, 'limits' | 'heartbeatMs' | 'streaming'>;
  /** More activities, for workflows of your own bundled beside agentRun. */
  readonly activities?: Readonly<Record<string, (...args: never[]) => Promise<unknown>>>;
  /** Any other Temporal WorkerOptions: maxCachedWorkflows, maxConcurrentActivityTaskExecutions, poller behaviors… (docs/operations.md) */
  readonly worker?: WorkerTuning;
  /** OpenTelemetry spans for runs, their activities and timers, with Cairn's attributes (docs/tracing.md). Needs the optional OpenTelemetry packages. */
  readonly tracing?: CairnTracingOptions;
  /**
   * Worker Deployment Versioning (docs/upgrades.md): this worker serves one build of a deployment,
   * and runs are pinned to their build or auto-upgrade, as their agent chose or `defaultBehavior`
   * says. Off unless given: the worker is then unversioned, as before.
   */
  readonly versioning?: WorkerVersioning;
  /**
   * Workspace tools' snapshots and sandbox (docs/workspaces.md): by default snapshots go to `store`
   * (else a directory of this machine) and commands run in bubblewrap. Used only when an agent has
   * a workspace.
   */
  readonly workspaces?: Omit<WorkspaceRuntimeOptions, 'store'>;
}

/** The longest gap between two heartbeats a Cairn worker sends for a running activity. */
export const HEARTBEAT_THROTTLE_MS = 2_000;

/**
 * The tools of `agents`, each once. Tool names must be unique per worker (the tool activity
 * dispatches by name): two different tools with one name throw an Error naming both agents.
 */
export function workerTools(agents: readonly Agent[]): AnyTool[] {
  const byName = new Map<string, { tool: AnyTool; agent: string }>();
  for (const agent of agents)
    for (const tool of agent.tools) {
      const seen = byName.get(tool.name);
      if (seen && seen.tool !== tool && !sameOnWorker(seen.tool, tool))
        throw new Error(
          `Agents "${seen.agent}" and "${agent.name}" each have a tool named "${tool.name}", and they are different tools. ` +
            'A worker runs tools by name: rename one, or give both agents the same tool object.',
        );
      if (!seen) byName.set(tool.name, { tool, agent: agent.name });
    }
  return [...byName.values()].map((entry) => entry.tool);
}

/**
 * Two tools the worker runs alike: the same body, guards and limits (they may differ in what the
 * workflow decides: approval, reviews, timeouts), as `workspaceTools()` called for two agents.
 */
function sameOnWorker(a: AnyTool, b: AnyTool): boolean {
  const hooks = (tool: AnyTool) => tool.postHooks ?? [];
  return (
    typeof a.execute === 'function' &&
    a.execute === b.execute &&
    a.output === b.output &&
    a.check === b.check &&
    a.reconcile === b.reconcile &&
    a.maxResultBytes === b.maxResultBytes &&
    a.workspace === b.workspace &&
    hooks(a).length === hooks(b).length &&
    hooks(a).every((hook, i) => hook === hooks(b)[i])
  );
}

/**
 * SDK 1.24 still types maxConcurrentWorkflowTaskPolls and maxConcurrentActivityTaskPolls but reads
 * only the poller behaviors: the counts become simple maximums (an explicit behavior wins).
 */
function pollerBehaviors(
  tuning: WorkerTuning,
): Pick<WorkerTuning, 'workflowTaskPollerBehavior' | 'activityTaskPollerBehavior'> {
  const { maxConcurrentWorkflowTaskPolls: workflow, maxConcurrentActivityTaskPolls: activity } = tuning;
  return {
    ...(workflow !== undefined && !tuning.workflowTaskPollerBehavior
      ? { workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: workflow } }
      : {}),
    ...(activity !== undefined && !tuning.activityTaskPollerBehavior
      ? { activityTaskPollerBehavior: { type: 'simple-maximum', maximum: activity } }
      : {}),
  };
}

/**
 * The SDK's default build id (`@temporalio/worker@1.24.0+` and the bundle's 64-hex SHA-256) is
 * written into three events of every activity and workflow task: ~90 bytes six times a model
 * turn. `cairn@` and 12 hex digits of the same hash name the code as well. Left to you when you
 * set `buildId`, `useVersioning` or `workerDeploymentOptions`; a versioned worker's build id is its
 * version's (`versioning.buildId`, by default this same hash).
 */
async function shortBuildId(
  tuning: WorkerTuning,
  bundle: WorkflowBundleOption,
  versioned: boolean,
): Promise<Pick<WorkerTuning, 'buildId'>> {
  if (versioned || tuning.buildId !== undefined || tuning.useVersioning || tuning.workerDeploymentOptions) return {};
  return { buildId: await bundleBuildId(bundle) };
}

/** a2aAgent tools call their remote agents through activities/a2a-activity.ts, loaded (with the optional `@a2a-js/sdk`) only when there are some. */
async function withRemoteAgents(tools: AnyTool[]): Promise<AnyTool[]> {
  if (!tools.some((tool) => a2aAgentOf(tool))) return tools;
  const { withA2AAgents } = await requirePeers(
    'a2aAgent tools',
    FEATURE_PEERS.a2a,
    () => import('../activities/a2a-activity.js'),
  );
  return withA2AAgents(tools);
}

/**
 * Checks each agent's model spec and credentials as the worker starts (so `cairn dev` and `cairn
 * worker` too): one warning line per agent whose model cannot be used, naming what is missing
 * (`OPENAI_API_KEY`). Never throws: runs that name another model, or a key set later, still work.
 */
export function checkAgentModels(
  agents: readonly Agent[],
  resolve: (spec: string) => ModelClient,
  warn: (line: string) => void = (line) => console.warn(line),
): string[] {
  const lines: string[] = [];
  for (const agent of agents) {
    if (!agent.model) continue;
    try {
      resolve(agent.model);
    } catch (err) {
      const first = (err instanceof Error ? err.message : String(err))
        .split('\n')[0]!
        .replace(/\s*Accepted model specs:\s*$/, '')
        .trim();
      lines.push(
        `cairn: agent "${agent.name}" cannot use its model "${agent.model}": ${first} Its runs will fail (model_misconfigured) until this is fixed.`,
      );
    }
  }
  for (const line of lines) warn(line);
  return lines;
}

/**
 * The worker's workspaces: the sandbox is checked once (a machine without bubblewrap gets one
 * line naming the package; its commands then fail `tool_unavailable`), and a worker with no run
 * store says its snapshots stay on this machine.
 */
async function startWorkspaces(
  options: CairnWorkerOptions,
  warn: (line: string) => void = (line) => console.warn(line),
): Promise<WorkspaceRuntime> {
  const runtime = workspaceRuntime({ ...options.workspaces, store: options.store });
  const problem = await runtime.driver.check();
  if (problem) warn(`cairn: ${problem}`);
  if (!options.store)
    warn(
      'cairn: workspace snapshots are kept in a directory of this machine (no run store): give the worker `store` so runs can move to other machines.',
    );
  return runtime;
}

/** Creates (does not run) a Cairn worker; call `run()` on it. Bundles `workflowsPath` first when given. */
export function createCairnWorker(options: CairnWorkerOptions): Promise<Worker> {
  return buildCairnWorker(options);
}

/** A worker's activities, by name. */
export type WorkerActivities = Record<string, (...args: never[]) => Promise<unknown>>;

/** createCairnWorker, with `replace` given the worker's activities to swap some (an evaluation's recorded ones). Internal. */
export async function buildCairnWorker(
  options: CairnWorkerOptions,
  replace: (activities: WorkerActivities) => WorkerActivities = (activities) => activities,
): Promise<Worker> {
  if (options.models && options.resolveModel)
    throw new Error('createCairnWorker takes either `models` or `resolveModel`, not both.');
  if (!options.workflowsPath === !options.workflowBundle)
    throw new Error('createCairnWorker needs exactly one of `workflowsPath` or `workflowBundle`.');
  // Agents that agent tools run are served too (their child runs use this worker's tools).
  const agents = reachableAgents(options.agents);
  const tools = await withRemoteAgents(workerTools(agents));
  const missing = missingNeeds(tools, options.deps);
  if (missing) throw new DefinitionError('missing_deps', missing);
  // One connection per MCP server per worker, shared by every call and run; closed when the worker stops.
  const mcp = new McpConnections(agents.flatMap((agent) => agent.mcpServers ?? []));
  // The MCP SDK is an optional peer: without it, say so now rather than in every run's tool calls.
  if (mcp.size > 0) await loadMcpSdk();
  const namespace = options.namespace ?? 'default';
  // The model activity reads transcripts through `client` (Queries): it decodes with the worker's codecs (encryption).
  const client =
    options.client ??
    new Client({
      connection: options.connection,
      namespace,
      ...(options.worker?.dataConverter && { dataConverter: options.worker.dataConverter }),
    });
  if (
    (options.worker?.dataConverter?.payloadCodecs?.length ?? 0) > 0 &&
    client.options.loadedDataConverter.payloadCodecs.length === 0
  )
    throw new Error(
      'createCairnWorker: `worker.dataConverter` has payload codecs but `client` has none; give the client the same dataConverter (the model activity reads transcripts through it).',
    );
  const resolve = options.resolveModel ?? ((spec: string) => resolveModel(spec, options.models));
  checkAgentModels(agents, resolve);
  // Fleet-wide limits per provider (Redis); released when the worker stops.
  const flowControl = options.models?.flowControl && redisFlowControl(options.models.flowControl);
  flowControl?.connect();
  // Per-tenant budgets per day and month (Redis); released when the worker stops.
  const tenantBudgets = options.models?.tenantBudgets && redisTenantBudgets(options.models.tenantBudgets);
  tenantBudgets?.connect();
  // Runs hand this worker the messages they append (TRANSCRIPT_SINK): a model turn here reads them without a Query.
  // Kept for as many runs as the workflow cache holds (characters stay bounded by the reader's own limit).
  const transcripts = new TranscriptReader(client, {
    maxRuns: Math.max(256, options.worker?.maxCachedWorkflows ?? 0),
    ...(options.store && { store: options.store }),
  });
  const tuning = options.worker ?? {};
  // Loaded only when asked for: the OpenTelemetry packages are optional (runtime/tracing.ts).
  const tracingModule = options.tracing ? await import('./tracing.js') : undefined;
  const tracing = options.tracing && (await tracingModule!.workerTracing(options.tracing));
  if (tracing && options.workflowBundle) await tracingModule!.checkTracingBundle(options.workflowBundle);
  const workflowInterceptorModules = [
    ...(tuning.interceptors?.workflowModules ?? []),
    ...(tracing?.workflowModules ?? []),
  ];
  const workflowBundle: WorkflowBundleOption =
    options.workflowBundle ??
    (await bundleWorkflows(options.workflowsPath!, {
      payloadConverterPath: tuning.dataConverter?.payloadConverterPath,
      failureConverterPath: tuning.dataConverter?.failureConverterPath,
      workflowInterceptorModules: workflowInterceptorModules.length > 0 ? workflowInterceptorModules : undefined,
    }).then((bundle) => ({ code: bundle.code })));
  await checkWorkflowBundle(workflowBundle!);
  const workspaces = agents.some((agent) => agent.workspace) ? await startWorkspaces(options) : undefined;
  const toolActivity = {
    ...(options.store && { payloadStore: runStorePayloads(options.store) }),
    ...(workspaces && { workspaces }),
    ...options.toolActivity,
    ...(mcp.size > 0 && { findTool: (name: string) => mcp.tool(name) }),
  };
  const versioning = await versioningOptions(options.versioning, workflowBundle, tuning, agents);
  const worker = await Worker.create({
    ...(await shortBuildId(tuning, workflowBundle, options.versioning !== undefined)),
    ...versioning,
    // Heartbeats at least every 2 s (the SDK's defaults: 80% of heartbeatTimeout, capped at 60 s,
    // else 30 s): slack under a short heartbeatTimeout on a busy machine, and a cancel reaches an
    // activity in seconds even without one. `worker` can set either.
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MS,
    defaultHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MS,
    ...tuning,
    ...pollerBehaviors(tuning),
    ...(tracing && { plugins: [...(tuning.plugins ?? []), tracing.plugin] }),
    sinks: {
      ...tuning.sinks,
      [TRANSCRIPT_SINK]: {
        append: {
          // Not awaited: the store write goes on beside the task's completion, off its critical path. A model turn
          // that reads before it lands waits for it, briefly, or asks the run (transcript-reader.ts).
          fn: (info: WorkflowInfo, epoch: number, from: number, messages: TranscriptMessage[]) => {
            void transcripts.handOver(info, epoch, from, messages);
          },
        },
      } satisfies InjectedSinks<{ [TRANSCRIPT_SINK]: TranscriptSinkCalls }>[typeof TRANSCRIPT_SINK],
    },
    connection: options.connection,
    namespace,
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowBundle,
    activities: replace({
      ...options.activities,
      ...createToolActivities(tools, options.deps, toolActivity),
      ...createReconcileActivities(tools, options.deps, toolActivity),
      ...createStatusPushActivities(),
      ...createModelActivities({
        ...options.modelActivity,
        client,
        resolve,
        tools,
        transcripts,
        ...(mcp.size > 0 && { findSpec: (name: string) => mcp.spec(name) }),
        ...(options.models?.prices && { prices: options.models.prices }),
        ...(flowControl && { flowControl }),
        ...(tenantBudgets && { tenantBudgets }),
      }),
      ...createMcpActivities(mcp),
      ...(workspaces && createWorkspacePreviewActivities(workspaces)),
    }),
  });
  // A delta transport's broker connection (redisTransport) is let go of when the worker stops.
  const transport = typeof options.modelActivity?.streaming === 'object' ? options.modelActivity.streaming : undefined;
  if (
    mcp.size === 0 &&
    !tracing &&
    !transport?.close &&
    !flowControl &&
    !tenantBudgets &&
    !workspaces &&
    !options.store
  )
    return worker;
  // No MCP server process outlives its worker, however `run` ends; spans buffered are flushed, and transcript
  // messages still being written reach the store.
  const run = worker.run.bind(worker);
  return Object.assign(worker, {
    run: () =>
      run().finally(() =>
        Promise.all([
          mcp.size > 0 && mcp.close(),
          tracing?.close().catch(() => {}),
          transport?.close?.().catch(() => {}),
          flowControl?.close().catch(() => {}),
          tenantBudgets?.close().catch(() => {}),
          workspaces?.checkouts.close().catch(() => {}),
          transcripts.drain(),
        ]),
      ),
  });
}
