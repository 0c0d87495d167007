/**
 * runEval: replays an evaluation's cases (eval-cases.ts) as real runs on the Temporal server, in
 * two lanes on workers of their own: the **baseline** (the agent as recorded, the recorded model
 * turns served in order: it must reproduce the recording) and the **candidate** (the changed
 * agent, with its own model). In both, tools are answered from the recording (lane-run.ts) and
 * people from what they answered: a question or review the recording lacks is "would have asked
 * a person", and the run is stopped there. Each lane run is a workflow with an id derived from the
 * lane's code, input and case: run the evaluation again after a crash and it picks up the runs in
 * flight and reuses the finished ones. Node-only.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { ResolveModelOptions } from '../../activities/model/resolve-model.js';
import { resolveModel } from '../../activities/model/resolve-model.js';
import type { ToolActivities } from '../../activities/tool-activity.js';
import type { PolicyOverrides } from '../../shared/agent/agent-policy.js';
import {
  candidateAgent,
  type CaseSources,
  isEvalDefinition,
  type EvalDefinition,
  type EvalLane,
  type ToolMode,
} from '../../shared/eval/define-eval.js';
import { diffDecisions, traceOf, type DecisionChange, type DecisionTrace } from '../../shared/eval/decision-trace.js';
import { recordingOf, type EvalEvent, type Recording } from '../../shared/eval/recording.js';
import { canonicalJson } from '../../shared/json/canonical-json.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../shared/json/json.js';
import {
  answerClarificationUpdate,
  cancelSignal,
  extendBudgetUpdate,
  resumeSignal,
  reviewToolCallUpdate,
  untilIdleUpdate,
  type AgentRunWorkflow,
  type RunState,
} from '../../workflows/contract/index.js';
import { generatedDir } from '../agents-entry.js';
import { bundleWorkflows } from '../workflow-bundle.js';
import { buildCairnWorker, type WorkerTuning } from '../worker.js';
import { loadCases, type EvalCase } from './eval-cases.js';
import { recordedModelActivity, recordedToolActivity, inertActivities } from './eval-activities.js';
import { historyEvents, type PayloadDecoding } from './history-events.js';
import { LaneRun, type Served } from './lane-run.js';
import { scoreAll, type ScoreResult } from './scoring.js';
import type { ModelClient } from '../../activities/model/model-client.js';

export interface RunEvalOptions {
  /** The eval module: its default export (or `exportName`) is a `defineEval` value. */
  readonly module: string;
  readonly exportName?: string;
  /** Cases instead of the eval's own (`cairn eval --histories`, `--query`); relative paths from the working directory. */
  readonly cases?: CaseSources;
  /** Starts the lane runs and reads histories; its data converter decodes them (the workers' codec). */
  readonly client: Client;
  /** The lanes' workers' connection. */
  readonly connection: NativeConnection;
  readonly namespace?: string;
  /** What read-only tools run live with get as `context.deps`. */
  readonly deps?: unknown;
  /** How the candidate's model and judges resolve (providers, scripts, env). */
  readonly models?: ResolveModelOptions;
  /** Worker options for the lanes' workers (the data converter must match the client's). */
  readonly worker?: WorkerTuning;
  /** Cases at once (default: the eval's `concurrency`, else 8). */
  readonly concurrency?: number;
  /** The longest a lane run may take (its workflow execution timeout); default 15 minutes. */
  readonly caseTimeoutMs?: number;
  /** Called after each case. */
  readonly onProgress?: (progress: EvalProgress) => void;
}

export interface EvalProgress {
  readonly done: number;
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
}

/** A person the run would have asked, whom the recording does not answer. */
export interface NewAsk {
  readonly kind: 'clarification' | 'review' | 'budget';
  readonly text: string;
}

export interface LaneReport {
  readonly workflowId: string;
  readonly trace: DecisionTrace;
  readonly scores: readonly ScoreResult[];
  readonly pass: boolean;
  /** Why it did not pass, one reason a line. */
  readonly failures: readonly string[];
  readonly newAsks: readonly NewAsk[];
  /** How its tool calls were answered. */
  readonly served: Readonly<Record<Served['how'], number>>;
  /** Calls served by the nearest recorded call (lenient), or refused. */
  readonly mismatches: readonly string[];
  /** Taken over from an earlier evaluation of the same code and case (not run again). */
  readonly reused: boolean;
}

export interface CaseReport {
  readonly id: string;
  readonly source: string;
  readonly prompt: string;
  readonly error?: EvalCase['error'];
  /** The recorded run's decisions (none for a dataset case). */
  readonly recorded?: DecisionTrace;
  readonly baseline?: LaneReport;
  readonly candidate?: LaneReport;
  /** The baseline lane took the recorded decisions (null for a dataset case). */
  readonly harnessAgrees?: boolean | null;
  /** What the baseline lane did differently from the recording: harness drift. */
  readonly drift?: readonly DecisionChange[];
  /** Every decision the candidate took differently from the baseline. */
  readonly changes?: readonly DecisionChange[];
  readonly pass: boolean;
}

export interface LaneSummary {
  readonly passed: number;
  readonly passRate: number;
  readonly costUsd: number;
  readonly tokens: number;
  readonly durationMs: number;
  readonly peopleAsked: number;
}

export interface GateResult {
  readonly gate: string;
  readonly limit: number | boolean;
  readonly actual: number;
  readonly crossed: boolean;
}

export interface EvalReport {
  readonly agent: string;
  readonly candidate: string;
  readonly tools: ToolMode;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly cases: readonly CaseReport[];
  readonly summary: {
    readonly cases: number;
    readonly errors: number;
    readonly evaluated: number;
    readonly baseline: LaneSummary;
    readonly candidate: LaneSummary;
    /** Share of recorded cases whose baseline lane took exactly the recorded decisions. */
    readonly harnessAgreement: number | null;
    /** Cases where the candidate decided anything differently. */
    readonly changedCases: number;
    /** Cases where the candidate would have asked a person the recording does not answer. */
    readonly newHumanAsks: number;
  };
  readonly gates: readonly GateResult[];
  /** No gate crossed, and at least one case evaluated. */
  readonly passed: boolean;
}

interface Lane {
  readonly lane: EvalLane;
  readonly taskQueue: string;
  readonly codeHash: string;
  readonly tools: ReadonlyMap<string, import('../../shared/tools/define-tool.js').AnyTool>;
  readonly worker: Worker;
  readonly running: Promise<void>;
}

/** How the evaluation's cancel of a run starts: the asks nobody recorded follow, as JSON (read back when the run is reused). */
const ASKED = 'cairn eval: the run would have asked a person the recording does not answer: ';

/** At most this many times a run is asked what it waits for (each a person answered from the recording). */
const MAX_HUMAN_ROUNDS = 200;

/** Runs the evaluation and returns its report. Throws only for a module or setup that cannot be used; a bad case is a case error. */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  const started = Date.now();
  const modulePath = resolvePath(options.module);
  const exportName = options.exportName ?? 'default';
  const loaded = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  const definition = loaded[exportName];
  if (!isEvalDefinition(definition))
    throw new Error(
      `${options.module}: its \`${exportName}\` export is not a defineEval value (export default defineEval({ agent, candidate, cases })).`,
    );
  const loadedConverter = options.client.options.loadedDataConverter;
  const decoding: PayloadDecoding = {
    payloadCodecs: loadedConverter.payloadCodecs,
    payloadConverter: loadedConverter.payloadConverter,
  };
  const cases = await loadCases(options.cases ?? definition.cases, definition.agent, {
    baseDir: options.cases ? process.cwd() : dirname(modulePath),
    client: options.client,
    decoding,
  });
  const resolve = (spec: string): ModelClient => resolveModel(spec, options.models);
  const runs = new Map<string, LaneRun>();
  const lanes: Lane[] = [];
  try {
    // Both lanes bundle and start at once; a worker that did start is still stopped below if the other fails.
    const starting = await Promise.allSettled(
      (['baseline', 'candidate'] as const).map((lane) =>
        startLane(lane, modulePath, exportName, definition, runs, options),
      ),
    );
    for (const lane of starting) if (lane.status === 'fulfilled') lanes.push(lane.value);
    const failed = starting.find((lane) => lane.status === 'rejected');
    if (failed) throw failed.reason;
    const mode = definition.tools ?? 'strict';
    const reports: CaseReport[] = [];
    const progress = { done: 0, total: cases.length, passed: 0, failed: 0, errors: 0 };
    const harness = {
      runs,
      mode,
      client: options.client,
      decoding,
      resolve,
      timeoutMs: options.caseTimeoutMs ?? 15 * 60_000,
    };
    await pool(cases, options.concurrency ?? definition.concurrency ?? 8, async (kase) => {
      // Whatever goes wrong with one case (the server refuses a start, a history cannot be read) is that case's error.
      const report = await evaluateCase(kase, definition, lanes, harness).catch(
        (error: unknown): CaseReport => ({
          id: kase.id,
          source: kase.source,
          prompt: kase.recording?.prompt ?? kase.dataset?.prompt ?? '',
          error: { code: 'harness_failed', message: (error as Error).message ?? String(error) },
          pass: false,
        }),
      );
      reports.push(report);
      progress.done++;
      if (report.error) progress.errors++;
      else if (report.pass) progress.passed++;
      else progress.failed++;
      options.onProgress?.({ ...progress });
    });
    const order = new Map(cases.map((kase, i) => [kase.id, i]));
    reports.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    return summarised(definition, mode, reports, started);
  } finally {
    for (const lane of lanes) lane.worker.shutdown();
    await Promise.allSettled(lanes.map((lane) => lane.running));
  }
}

/** Bundles the lane's workflow code (the eval module's agent, or its candidate) and starts its worker. */
async function startLane(
  lane: EvalLane,
  modulePath: string,
  exportName: string,
  definition: EvalDefinition,
  runs: Map<string, LaneRun>,
  options: RunEvalOptions,
): Promise<Lane> {
  const entry = await writeEvalEntry(modulePath, lane, exportName);
  const { code } = await bundleWorkflows(entry, {
    payloadConverterPath: options.worker?.dataConverter?.payloadConverterPath,
    failureConverterPath: options.worker?.dataConverter?.failureConverterPath,
  });
  const codeHash = createHash('sha256').update(code).digest('hex');
  const taskQueue = `cairn-eval-${lane}-${codeHash.slice(0, 12)}`;
  const agent = lane === 'baseline' ? definition.agent : candidateAgent(definition.agent, definition.candidate);
  const worker = await buildCairnWorker(
    {
      connection: options.connection,
      client: options.client,
      namespace: options.namespace ?? options.client.options.namespace,
      taskQueue,
      agents: [agent],
      deps: options.deps,
      ...(options.models && { models: options.models }),
      workflowBundle: { code },
      worker: { ...options.worker, buildId: `cairn-eval@${codeHash.slice(0, 12)}` },
    },
    (activities) => ({
      ...activities,
      ...recordedToolActivity(runs, activities as unknown as ToolActivities),
      ...(lane === 'baseline' && recordedModelActivity(runs)),
      ...inertActivities,
    }),
  );
  const running = worker.run();
  return { lane, taskQueue, codeHash, tools: new Map(agent.tools.map((tool) => [tool.name, tool])), worker, running };
}

/** The lane's generated bundle entry: the eval module's agent (baseline) or candidate, behind defineAgentRun. */
async function writeEvalEntry(modulePath: string, lane: EvalLane, exportName: string): Promise<string> {
  const dir = generatedDir();
  await mkdir(dir, { recursive: true });
  const key = createHash('sha256').update(`${modulePath}\0${exportName}\0${lane}`).digest('hex').slice(0, 12);
  const file = join(dir, `eval-${lane}-${key}.js`);
  const workflowEntry = fileURLToPath(new URL('../../entry/workflow.js', import.meta.url));
  const evalEntry = fileURLToPath(new URL('../../shared/eval/define-eval.js', import.meta.url));
  await writeFile(
    file,
    `// Generated by cairn eval: the ${lane} lane's workflow entry for ${modulePath}. Rewritten on every evaluation.\n` +
      `import * as evalModule from ${JSON.stringify(modulePath)};\n` +
      `import { defineAgentRun } from ${JSON.stringify(workflowEntry)};\n` +
      `import { evalLaneAgents } from ${JSON.stringify(evalEntry)};\n\n` +
      `export const agentRun = defineAgentRun(evalLaneAgents(evalModule, ${JSON.stringify(lane)}, ${JSON.stringify(exportName)}));\n`,
  );
  return file;
}

async function pool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker));
}

/**
 * People's answers for one case. The baseline lane reproduces the recorded run, so its questions
 * have the recorded ids: each gets the answers recorded for its id, in order (one the run refuses,
 * e.g. an invalid answer sent by Signal, is skipped). The candidate's question gets the answer the
 * baseline's same question took. Reviews by tool and argument hash, budget requests in order.
 */
class CaseAnswers {
  readonly byQuestion = new Map<string, JsonValue>();
  readonly #budgets = new Map<EvalLane, number>();

  constructor(
    readonly recording: Recording | undefined,
    /** Settles when the baseline lane has run: every question it was asked is known by then. */
    readonly baselineDone: Promise<unknown>,
    readonly dataset: Readonly<Record<string, JsonValue>> = {},
  ) {}

  /** The answers to try for question `id`, best first. */
  async answers(lane: EvalLane, question: string, id: string): Promise<JsonValue[]> {
    const known = this.dataset[question];
    if (lane === 'baseline') {
      const recorded = (this.recording?.answers ?? []).filter((item) => item.id === id).map((item) => item.answer);
      return known === undefined ? recorded : [...recorded, known];
    }
    // The lanes run side by side: a question the baseline has not reached yet may still come.
    if (!this.byQuestion.has(question)) await this.baselineDone.catch(() => undefined);
    const answer = this.byQuestion.get(question) ?? known;
    return answer === undefined ? [] : [answer];
  }

  /** The baseline's run took `answer` to `question`: the candidate's same question gets it. */
  took(lane: EvalLane, question: string, answer: JsonValue): void {
    if (lane === 'baseline') this.byQuestion.set(question, answer);
  }

  reviews(name: string, argsHash: string): JsonValue[] {
    return (this.recording?.reviews ?? [])
      .filter((review) => review.argsHash === argsHash && (review.name === undefined || review.name === name))
      .map((review) => review.decision);
  }

  /** The next recorded budget decision for `lane`. */
  budget(lane: EvalLane): JsonValue | undefined {
    const next = this.#budgets.get(lane) ?? 0;
    this.#budgets.set(lane, next + 1);
    return this.recording?.budgets[next]?.decision;
  }
}

/** What every case's lane runs share. */
interface Harness {
  readonly runs: Map<string, LaneRun>;
  readonly mode: ToolMode;
  readonly client: Client;
  readonly decoding: PayloadDecoding;
  readonly resolve: (spec: string) => ModelClient;
  readonly timeoutMs: number;
}

async function evaluateCase(
  kase: EvalCase,
  definition: EvalDefinition,
  lanes: readonly Lane[],
  harness: Harness,
): Promise<CaseReport> {
  const prompt = kase.recording?.prompt ?? kase.dataset?.prompt ?? '';
  if (kase.error) return { id: kase.id, source: kase.source, prompt, error: kase.error, pass: false };
  const recorded = kase.recording && traceOf(kase.recording);
  let baselineDone: (value?: unknown) => void = () => {};
  const answers = new CaseAnswers(
    kase.recording,
    new Promise((resolve) => (baselineDone = resolve)),
    kase.dataset?.answers,
  );
  const lane = (name: EvalLane) => lanes.find((item) => item.lane === name)!;
  const [baseline, candidate] = await Promise.all([
    runLane(lane('baseline'), kase, definition, answers, harness).finally(baselineDone),
    runLane(lane('candidate'), kase, definition, answers, harness),
  ]);
  const drift = recorded ? diffDecisions(recorded, baseline.trace) : undefined;
  return {
    id: kase.id,
    source: kase.source,
    prompt,
    ...(recorded && { recorded }),
    baseline,
    candidate,
    harnessAgrees: drift ? drift.length === 0 : null,
    ...(drift && { drift }),
    changes: diffDecisions(baseline.trace, candidate.trace),
    pass: candidate.pass,
  };
}

/** The run input of a lane: the recorded one (model, policy, tenant), with the candidate's changes. */
function laneInput(kase: EvalCase, definition: EvalDefinition, lane: EvalLane): JsonObject {
  const recorded = kase.recording?.input ?? {};
  const input: Record<string, JsonValue> = {
    agent: definition.agent.name,
    prompt: kase.recording?.prompt ?? kase.dataset!.prompt,
  };
  for (const key of ['model', 'policy', 'tenant', 'user', 'continueAsNewAfterTurns'] as const)
    if (recorded[key] !== undefined) input[key] = recorded[key]!;
  if (kase.dataset?.tenant !== undefined) input.tenant = kase.dataset.tenant;
  if (lane === 'candidate') {
    const { model, policy } = definition.candidate;
    if (model !== undefined) input.model = model;
    if (policy !== undefined) input.policy = mergedPolicy(isJsonObject(input.policy) ? input.policy : {}, policy);
  }
  return input;
}

/** `over` on top of `base`, one level deep (the policy's groups: backoff, budget…). */
function mergedPolicy(base: JsonObject, over: PolicyOverrides): JsonObject {
  const merged: Record<string, JsonValue> = { ...base };
  for (const [key, value] of Object.entries(over as JsonObject)) {
    const was = merged[key];
    merged[key] = isJsonObject(was) && isJsonObject(value) ? { ...was, ...value } : value;
  }
  return merged;
}

async function runLane(
  lane: Lane,
  kase: EvalCase,
  definition: EvalDefinition,
  answers: CaseAnswers,
  { runs, mode, client, decoding, resolve, timeoutMs }: Harness,
): Promise<LaneReport> {
  const input = laneInput(kase, definition, lane.lane);
  const key = createHash('sha256')
    .update(
      `${lane.codeHash}\0${canonicalJson(input)}\0${kase.id}\0${kase.recording ? canonicalJson(kase.recording as unknown as JsonValue) : ''}`,
    )
    .digest('hex')
    .slice(0, 20);
  const workflowId = `cairn-eval-${lane.lane}-${key}`;
  const serving = new LaneRun(kase.id, lane.lane, kase.recording, mode, lane.tools);
  runs.set(workflowId, serving);
  try {
    let reused = false;
    try {
      await client.workflow.start('agentRun', {
        taskQueue: lane.taskQueue,
        workflowId,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'USE_EXISTING',
        // A run that cannot finish (a workflow task that keeps failing, a wait nobody ends) closes, and says so.
        workflowExecutionTimeout: timeoutMs,
        memo: { cairnEval: { case: kase.id, lane: lane.lane } },
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      reused = true; // closed in an earlier evaluation of this very code and case
    }
    const handle = client.workflow.getHandle<AgentRunWorkflow>(workflowId);
    const asked = reused ? undefined : await answerPeople(handle, lane.lane, answers);
    await handle.result().catch(() => undefined);
    const events = await historyEvents(await handle.fetchHistory(), decoding);
    const recording = recordingOf(events);
    const newAsks = asked ?? asksInHistory(events);
    const unanswered = {
      clarifications: newAsks.filter((ask) => ask.kind === 'clarification').length,
      reviews: newAsks.filter((ask) => ask.kind === 'review').length,
      budgets: newAsks.filter((ask) => ask.kind === 'budget').length,
    };
    const trace = traceOf(recording, unanswered);
    const expected = kase.dataset ? (kase.dataset.expected ?? null) : (traceOf(kase.recording!).answer ?? null);
    const scores = await scoreAll(
      definition.scorers ?? [],
      {
        caseId: kase.id,
        prompt: recording.prompt,
        answer: trace.answer,
        expected,
        outcome: trace.outcome,
        toolCalls: trace.calls.map(({ name, args }) => ({ name, args })),
      },
      resolve,
    );
    const served = { recorded: 0, nearest: 0, live: 0, refused: 0 };
    for (const item of serving.served) served[item.how]++;
    const mismatches = serving.served.flatMap((item) =>
      item.how === 'nearest'
        ? [`${item.tool}: ${item.mismatch}`]
        : item.how === 'refused'
          ? [`${item.tool}: ${item.why}`]
          : [],
    );
    // Reused runs: what was refused is still in their history, as the results the tools gave.
    const refused = reused ? refusedInHistory(recording) : serving.served.filter((item) => item.how === 'refused');
    const expectedOutcome = kase.recording ? traceOf(kase.recording).outcome : 'answered';
    const failures = [
      ...refused.map((item) => `${item.tool}: ${'why' in item ? item.why : 'not in the recording'}`),
      ...serving.drift,
      ...newAsks.map((ask) => `would have asked a person (${ask.kind}): ${ask.text}`),
      ...scores
        .filter((score) => !score.pass)
        .map((score) => `${score.name}: ${score.reason ?? `scored ${score.score}`}`),
      ...((definition.scorers ?? []).length === 0 && trace.outcome !== expectedOutcome
        ? [`ended ${trace.outcome}, the recording ${expectedOutcome}`]
        : []),
    ];
    return { workflowId, trace, scores, pass: failures.length === 0, failures, newAsks, served, mismatches, reused };
  } finally {
    runs.delete(workflowId);
  }
}

/** The people a reused lane run would have asked: the evaluation's cancel says whom. */
function asksInHistory(events: readonly EvalEvent[]): NewAsk[] {
  for (const event of events)
    if (
      event.type === 'signaled' &&
      event.name === 'cancel' &&
      typeof event.args === 'string' &&
      event.args.startsWith(ASKED)
    )
      try {
        return JSON.parse(event.args.slice(ASKED.length)) as NewAsk[];
      } catch {
        return [];
      }
  return [];
}

/** The calls an evaluation refused, from a lane run's own history (a run reused from an earlier evaluation). */
function refusedInHistory(recording: Recording): { tool: string; why: string }[] {
  return recording.toolRuns.flatMap((run) => {
    const result = run.result;
    const error = isJsonObject(result) && isJsonObject(result.error) ? result.error : undefined;
    return error?.code === 'tool_unavailable' && typeof error.message === 'string' && /recording/.test(error.message)
      ? [{ tool: run.name, why: error.message }]
      : [];
  });
}

/** What the run waits for (the `untilIdle` Update), or undefined once it has closed. */
async function untilIdle(handle: WorkflowHandle<AgentRunWorkflow>): Promise<RunState | undefined> {
  for (;;) {
    try {
      const state = await handle.executeUpdate(untilIdleUpdate);
      if (!state.continuingAsNew) return state;
    } catch (error) {
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') return undefined;
      throw error;
    }
  }
}

/** Tries `offers` in order until the run takes one; the index taken, or -1 when it refused them all (or there were none). */
async function firstTaken(offers: readonly JsonValue[], send: (offer: JsonValue) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < offers.length; i++) {
    try {
      await send(offers[i]!);
      return i;
    } catch (error) {
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
    }
  }
  return -1;
}

/** Answers what the run asks from the recording until it ends; a question nobody recorded stops it. */
async function answerPeople(
  handle: WorkflowHandle<AgentRunWorkflow>,
  lane: EvalLane,
  answers: CaseAnswers,
): Promise<NewAsk[]> {
  for (let round = 0; round < MAX_HUMAN_ROUNDS; round++) {
    const state = await untilIdle(handle);
    if (!state || state.phase === 'done' || state.outcome) return [];
    const asks: NewAsk[] = [];
    if (state.clarification) {
      const { id, question } = state.clarification;
      const offers = await answers.answers(lane, question, id);
      const taken = await firstTaken(offers, (answer) =>
        handle.executeUpdate(answerClarificationUpdate, { args: [{ id, answer }] }),
      );
      if (taken < 0) asks.push({ kind: 'clarification', text: question });
      else answers.took(lane, question, offers[taken]!);
    } else if (state.reviews.length > 0) {
      for (const { toolCallId, argsHash, name, args } of state.reviews) {
        const taken = await firstTaken(answers.reviews(name, argsHash), (decision) =>
          handle.executeUpdate(reviewToolCallUpdate, { args: [{ toolCallId, argsHash, decision: decision as never }] }),
        );
        if (taken < 0) asks.push({ kind: 'review', text: `${name} ${JSON.stringify(args).slice(0, 200)}` });
      }
    } else if (state.budget?.pending) {
      const { id } = state.budget.pending;
      const decision = answers.budget(lane);
      const taken = await firstTaken(decision === undefined ? [] : [decision], (offer) =>
        handle.executeUpdate(extendBudgetUpdate, { args: [{ id, decision: offer as never }] }),
      );
      if (taken < 0) asks.push({ kind: 'budget', text: `extend the ${state.budget.pending.limit} budget` });
    } else if (state.paused) await handle.signal(resumeSignal);
    if (asks.length > 0) {
      await handle.signal(cancelSignal, `${ASKED}${JSON.stringify(asks)}`);
      return asks;
    }
  }
  const asks: NewAsk[] = [{ kind: 'clarification', text: `more than ${MAX_HUMAN_ROUNDS} rounds of questions` }];
  await handle.signal(cancelSignal, `${ASKED}${JSON.stringify(asks)}`);
  return asks;
}

function laneSummary(reports: readonly CaseReport[], lane: EvalLane): LaneSummary {
  const lanes = reports.flatMap((report) => (report[lane] ? [report[lane]] : []));
  const passed = lanes.filter((item) => item.pass).length;
  return {
    passed,
    passRate: lanes.length === 0 ? 0 : passed / lanes.length,
    costUsd: sum(lanes.map((item) => item.trace.usage.costUsd)),
    tokens: sum(lanes.map((item) => item.trace.usage.inputTokens + item.trace.usage.outputTokens)),
    durationMs: sum(lanes.map((item) => item.trace.durationMs)),
    peopleAsked: sum(lanes.map((item) => item.trace.clarifications + item.trace.reviews + item.trace.budgets)),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function summarised(definition: EvalDefinition, mode: ToolMode, reports: CaseReport[], started: number): EvalReport {
  const evaluated = reports.filter((report) => !report.error);
  const recorded = evaluated.filter((report) => report.harnessAgrees !== null);
  const baseline = laneSummary(evaluated, 'baseline');
  const candidate = laneSummary(evaluated, 'candidate');
  const newHumanAsks = evaluated.filter((report) => (report.candidate?.newAsks.length ?? 0) > 0).length;
  const gates = definition.gates ?? {};
  const results: GateResult[] = [];
  const drop = baseline.passRate - candidate.passRate;
  const maxDrop = gates.maxPassRateDrop ?? 0;
  results.push({ gate: 'maxPassRateDrop', limit: maxDrop, actual: round(drop), crossed: drop > maxDrop + 1e-9 });
  if (gates.minPassRate !== undefined)
    results.push({
      gate: 'minPassRate',
      limit: gates.minPassRate,
      actual: round(candidate.passRate),
      crossed: candidate.passRate < gates.minPassRate,
    });
  if (gates.maxCostIncrease !== undefined) {
    const rise =
      baseline.costUsd > 0
        ? (candidate.costUsd - baseline.costUsd) / baseline.costUsd
        : candidate.costUsd > 0
          ? Infinity
          : 0;
    results.push({
      gate: 'maxCostIncrease',
      limit: gates.maxCostIncrease,
      actual: round(rise),
      crossed: rise > gates.maxCostIncrease,
    });
  }
  if (gates.failOnNewHumanAsk ?? true)
    results.push({ gate: 'failOnNewHumanAsk', limit: true, actual: newHumanAsks, crossed: newHumanAsks > 0 });
  return {
    agent: definition.agent.name,
    candidate: definition.candidate.name ?? 'candidate',
    tools: mode,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    cases: reports,
    summary: {
      cases: reports.length,
      errors: reports.length - evaluated.length,
      evaluated: evaluated.length,
      baseline,
      candidate,
      harnessAgreement:
        recorded.length === 0 ? null : recorded.filter((report) => report.harnessAgrees).length / recorded.length,
      changedCases: evaluated.filter((report) => (report.changes?.length ?? 0) > 0).length,
      newHumanAsks,
    },
    gates: results,
    passed: evaluated.length > 0 && results.every((gate) => !gate.crossed),
  };
}

function round(value: number): number {
  return Number.isFinite(value) ? Math.round(value * 1e4) / 1e4 : value;
}
