/**
 * Replaying histories against the current build: the safety check before a deploy. Histories come
 * from files (`temporal workflow show --output json`, test/histories) or from the server (a
 * visibility query, or workflow ids); each is replayed on its own, so one that diverges does not
 * hide the others, and each outcome says whether the new code still takes the same commands
 * (`ok`), takes different ones (`nondeterministic`), cannot run the history at all (`failed`:
 * an unknown workflow type, a workflow task that throws), or does not serve the run's agent
 * (`unknown_agent`). `cairn replay` prints these. Node-only.
 */
import { readFile } from 'node:fs/promises';
import { basename, relative } from 'node:path';
import type { Client } from '@temporalio/client';
// Not @temporalio/common's: it mixes protobufjs copies in an installed project (eval/history-json.ts).
import { historyFromJson as historyFromJSON, type History } from './eval/history-json.js';
import { Worker, type ReplayWorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import { reachableAgents } from '../shared/agent/define-agent.js';
import { writeAgentsEntry } from './agents-entry.js';
import { loadProject, type CairnConfig } from './project-config.js';
import { bundleWorkflows } from './workflow-bundle.js';

/** One history to replay, with the workflow id its run had (a run's children derive their ids from it). */
export interface ReplaySource {
  readonly workflowId: string;
  /** A `History` (decoded proto, as `handle.fetchHistory()` returns) or its proto JSON. */
  readonly history: History | unknown;
  /** Where it came from, for the report: a file, or `run <runId>` on the server. */
  readonly source?: string;
}

export interface ReplayOptions {
  /** A workflows file (exporting `agentRun = defineAgentRun(agents)`), bundled first. */
  readonly workflowsPath?: string;
  /** Or a bundle made beforehand (`bundleWorkflows`). */
  readonly workflowBundle?: WorkflowBundleOption;
  /**
   * The worker's data converter (payload codecs decrypt the histories' payloads; converter paths go
   * into the bundle) and workflow interceptor modules: the same as the workers that wrote the histories.
   */
  readonly worker?: Pick<ReplayWorkerOptions, 'dataConverter' | 'interceptors'>;
  /**
   * The agents the workflow code serves (every one reachable, by name), when known: a history of
   * another agent that does not replay is `unknown_agent`, naming it, rather than `nondeterministic`.
   */
  readonly agents?: readonly string[];
}

/** `unknown_agent`: the run's agent is not in this build (it fails at once in replay, unlike the recorded run). */
export type ReplayStatus = 'ok' | 'nondeterministic' | 'failed' | 'unknown_agent';

export interface ReplayOutcome {
  readonly workflowId: string;
  /** The run id replay gave the history. */
  readonly runId: string;
  readonly source?: string;
  /** `nondeterministic`: the code issues other commands than the history holds; `failed`: a workflow task failed in replay (e.g. an unknown workflow type); `unknown_agent`: the build has no agent of the run's name. */
  readonly status: ReplayStatus;
  /** Why, on one line, when not ok. */
  readonly reason?: string;
}

/**
 * Replays each history against the workflow code and yields one outcome per history, in order, as
 * it goes (`Worker.runReplayHistories`: one replay worker, one history at a time).
 */
export async function* replayHistories(
  histories: Iterable<ReplaySource> | AsyncIterable<ReplaySource>,
  options: ReplayOptions,
): AsyncGenerator<ReplayOutcome, void, undefined> {
  if (!options.workflowsPath === !options.workflowBundle)
    throw new Error('replayHistories needs exactly one of `workflowsPath` or `workflowBundle`.');
  // Nothing to replay (a gate with no run to move) costs no bundle: webpack is most of the time.
  const items = Symbol.asyncIterator in histories ? histories[Symbol.asyncIterator]() : toAsync(histories);
  const first = await items.next();
  if (first.done) return;
  const { dataConverter, interceptors } = options.worker ?? {};
  const workflowBundle =
    options.workflowBundle ??
    (await bundleWorkflows(options.workflowsPath!, {
      payloadConverterPath: dataConverter?.payloadConverterPath,
      failureConverterPath: dataConverter?.failureConverterPath,
      workflowInterceptorModules: interceptors?.workflowModules,
    }).then((bundle) => ({ code: bundle.code })));
  // runReplayHistories replays one history at a time, so each result belongs to the last one handed over.
  let current: ReplaySource | undefined;
  async function* feed() {
    for (let next = first; !next.done; next = await items.next()) {
      const item = next.value;
      current = item;
      yield {
        workflowId: item.workflowId,
        history: isHistory(item.history) ? item.history : historyFromJSON(item.history),
      };
    }
  }
  const replayOptions: ReplayWorkerOptions = {
    workflowBundle,
    ...(dataConverter && { dataConverter }),
    ...(interceptors?.workflowModules && { interceptors: { workflowModules: interceptors.workflowModules } }),
  };
  for await (const result of Worker.runReplayHistories(replayOptions, feed())) {
    const error = result.error;
    const base = {
      workflowId: result.workflowId,
      runId: result.runId,
      ...(current?.source !== undefined && { source: current.source }),
    };
    if (!error) {
      yield { ...base, status: 'ok' };
      continue;
    }
    const agent = options.agents && current ? await agentOf(current.history, dataConverter) : undefined;
    if (agent !== undefined && !options.agents!.includes(agent))
      yield {
        ...base,
        status: 'unknown_agent',
        reason: `agent "${agent}" is not in this build (it has ${options.agents!.map((name) => `"${name}"`).join(', ') || 'none'})`,
      };
    else
      yield {
        ...base,
        status: error.name === 'DeterminismViolationError' ? 'nondeterministic' : 'failed',
        reason: replayReason(error.message),
      };
  }
}

/** The agent a recorded agentRun was started for (its input's `agent`), when the input can be read. */
async function agentOf(
  history: unknown,
  dataConverter: ReplayWorkerOptions['dataConverter'],
): Promise<string | undefined> {
  try {
    const decoded = isHistory(history) ? history : historyFromJSON(history);
    let payloads = decoded.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    // Encrypted inputs are decrypted the way the workers do (codecs run in reverse to decode).
    for (const codec of [...(dataConverter?.payloadCodecs ?? [])].reverse()) payloads = await codec.decode(payloads);
    const first = payloads[0];
    if (!first?.data || new TextDecoder().decode(first.metadata?.encoding ?? new Uint8Array()) !== 'json/plain')
      return undefined;
    const agent = (JSON.parse(new TextDecoder().decode(first.data)) as { agent?: unknown } | null)?.agent;
    return typeof agent === 'string' ? agent : undefined;
  } catch {
    return undefined;
  }
}

/** The part of a replay error that says what diverged, on one line (the SDK's preamble and Rust wrapping dropped). */
export function replayReason(message: string): string {
  const details = message.includes('Details: ')
    ? message.slice(message.indexOf('Details: ') + 'Details: '.length)
    : message;
  return details
    .replace(/^Workflow activation completion failed: Failure \{ failure: Some\(Failure \{ message: "/, '')
    .replace(/", source: .*$/s, '')
    .replace(/\\"/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

function isHistory(value: unknown): value is History {
  // A decoded History's events carry Long ids and enum numbers; JSON's carry strings.
  const first = (value as { events?: { eventType?: unknown }[] } | undefined)?.events?.[0];
  return first !== undefined && typeof first.eventType === 'number';
}

interface JsonEvent {
  workflowExecutionStartedEventAttributes?: { workflowId?: string };
  startChildWorkflowExecutionInitiatedEventAttributes?: { workflowId?: string };
}

/** A history file could not be used: the message names it. */
export class HistoryFileError extends Error {
  override readonly name = 'HistoryFileError';
}

/**
 * A history file in proto JSON (`temporal workflow show --output json`, `historyToJSON`,
 * test/histories), with the workflow id its run had: the one its first event names (servers since
 * 1.27 record it), else the parent's id its children's ids start with, else the file's name.
 */
export async function readHistoryFile(file: string): Promise<ReplaySource> {
  const shown = relative(process.cwd(), file) || file;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    throw new HistoryFileError(
      code === 'ENOENT' ? `${shown} does not exist.` : `Cannot read ${shown} as a history: ${message}`,
    );
  }
  // Some tools write the events alone.
  const history = Array.isArray(json) ? { events: json } : json;
  const events = (history as { events?: unknown } | null)?.events;
  if (!Array.isArray(events) || events.length === 0)
    throw new HistoryFileError(
      `${shown} is not a workflow history: no "events" (write one with \`temporal workflow show --output json\`).`,
    );
  let decoded: History;
  try {
    decoded = historyFromJSON(history);
  } catch (error) {
    throw new HistoryFileError(`${shown} is not a workflow history: ${(error as Error).message}`);
  }
  return {
    workflowId: workflowIdOf(events as JsonEvent[]) ?? basename(file).replace(/\.json$/, ''),
    history: decoded,
    source: shown,
  };
}

function workflowIdOf(events: readonly JsonEvent[]): string | undefined {
  const own = events[0]?.workflowExecutionStartedEventAttributes?.workflowId;
  if (own) return own;
  const child = events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
    ?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
  return child?.includes('/') ? child.slice(0, child.lastIndexOf('/')) : undefined;
}

export interface ServerHistoriesOptions {
  /** A visibility query (`WorkflowType="agentRun" AND ExecutionStatus="Running"`): every run it finds. */
  readonly query?: string;
  /** At most this many runs from `query`. */
  readonly limit?: number;
  /** And these workflows' latest runs, read directly (no visibility delay). */
  readonly workflowIds?: readonly string[];
}

/** Histories fetched from the server, one at a time as replay asks for them. */
export async function* serverHistories(
  client: Client,
  options: ServerHistoriesOptions,
): AsyncGenerator<ReplaySource, void, undefined> {
  for (const workflowId of options.workflowIds ?? []) {
    const handle = client.workflow.getHandle(workflowId);
    const { runId } = await handle.describe();
    yield {
      workflowId,
      history: await client.workflow.getHandle(workflowId, runId).fetchHistory(),
      source: `run ${runId}`,
    };
  }
  if (options.query === undefined) return;
  let count = 0;
  if (options.limit !== undefined && options.limit <= 0) return;
  for await (const run of client.workflow.list({
    query: options.query,
    ...(options.limit !== undefined && { pageSize: Math.min(options.limit, 1000) }),
  })) {
    yield {
      workflowId: run.workflowId,
      history: await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory(),
      source: `run ${run.runId}`,
    };
    if (options.limit !== undefined && ++count >= options.limit) return;
  }
}

/** What replaying a project's agents needs from its config: no deps are made, no model resolved. */
export interface ProjectWorkflows {
  readonly configFile: string;
  /** The generated workflow entry over the agents module (the one `cairn worker` bundles). */
  readonly workflowsPath: string;
  /** The agents the config names. */
  readonly agents: readonly string[];
  /** Those and every agent they reach through agent tools: what the workflow serves (`ReplayOptions.agents`). */
  readonly servedAgents: readonly string[];
  readonly worker?: CairnConfig['worker'];
}

/**
 * The workflows of the project `configFile` configures, as `cairn worker` bundles them: the agents
 * module, checked to export agents, behind the same generated entry. Unlike a worker it does not
 * make the config's deps (replay runs no tool), so it needs none of their credentials.
 * Throws ProjectConfigError naming the file and the fix.
 */
export async function projectWorkflows(configFile: string): Promise<ProjectWorkflows> {
  const project = await loadProject(configFile, { deps: false });
  return {
    configFile: project.configFile,
    workflowsPath: await writeAgentsEntry(project.agentsModule),
    agents: project.agents.map((agent) => agent.name),
    servedAgents: reachableAgents(project.agents).map((agent) => agent.name),
    ...(project.worker && { worker: project.worker }),
  };
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T, void, undefined> {
  yield* items;
}
