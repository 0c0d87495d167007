/**
 * runEval: replays an evaluation's cases (eval-cases.ts) as real runs on the Temporal server, in
 * two lanes on workers of their own: the **baseline** (the agent as recorded, the recorded model
 * turns served in order: it must reproduce the recording) and the **candidate** (the changed
 * agent, with its own model). In both, tools are answered from the recording (lane-run.ts) and
 * people from what they answered: a question or review the recording lacks is "would have asked
 * a person", and the run is stopped there. Each lane run is a workflow with an id derived from the
 * lane's code, input and case: run the evaluation again after a crash and it picks up the runs in
 * flight and reuses the finished ones. A recorded case's baseline is kept between evaluations
 * (baseline-cache.ts): the baseline lane starts only for a case whose baseline is not kept. Node-only.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { resolveModel } from '../../activities/model/resolve-model.js';
import type { PolicyOverrides } from '../../shared/agent/agent-policy.js';
import {
  candidateAgent,
  type CaseSources,
  isEvalDefinition,
  type EvalDefinition,
  type EvalLane,
  type Gates,
  type ToolMode,
} from '../../shared/eval/define-eval.js';
import { diffDecisions, traceOf, type DecisionTrace } from '../../shared/eval/decision-trace.js';
import { recordingOf, type EvalEvent, type Recording } from '../../shared/eval/recording.js';
import { canonicalJson } from '../../shared/json/canonical-json.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../shared/json/json.js';
import type { AgentRunWorkflow } from '../../workflows/contract/index.js';
import { loadCases, schemaMisfits, type EvalCase } from './eval-cases.js';
import { historyEvents, type PayloadDecoding } from './history-events.js';
import { LaneRegistry, LaneRun } from './lane-run.js';
import { scheduledBefore } from './lane-position.js';
import { scoreAll } from './scoring.js';
import { summarised, type CaseReport, type EvalReport, type LaneReport, type NewAsk } from './eval-results.js';
import { laneTools, startLane, type Lane, type LaneSetup } from './eval-lanes.js';
import { answerPeople, asksInHistory, CaseAnswers } from './case-people.js';
import { caseErrors, EvalInputError, moduleLoadError } from './eval-input-error.js';
import type { ModelClient } from '../../activities/model/model-client.js';
import { BaselineCache, evalCacheDir } from './baseline-cache.js';
import type { AnyTool } from '../../shared/tools/define-tool.js';
import { askFailure, loadOpenCases, outcomeFailure, settleOpenCase } from './open-case.js';

export interface RunEvalOptions extends LaneSetup {
  /** The eval module: its default export (or `exportName`) is a `defineEval` value. */
  readonly module: string;
  readonly exportName?: string;
  /** Cases instead of the eval's own (`cairn eval --histories`, `--query`); relative paths from the working directory. */
  readonly cases?: CaseSources;
  /** Cases at once (default: the eval's `concurrency`, else 8). */
  readonly concurrency?: number;
  /** The longest a lane run may take (its workflow execution timeout); default 15 minutes. */
  readonly caseTimeoutMs?: number;
  /**
   * Evaluate the cases that can be, and pass with cases that cannot (`cairn eval --allow-errors`).
   * Without it a case that cannot be evaluated stops the evaluation before any lane starts, and a
   * case that fails during it crosses the `caseErrors` gate.
   */
  readonly allowErrors?: boolean;
  /** Called after each case. */
  readonly onProgress?: (progress: EvalProgress) => void;
  /**
   * Cases from runs still open, beside the eval's cases (a deploy gate's runs that would move):
   * each compared up to where it waits (open-case.ts). Only the eval's agent's runs of them.
   */
  readonly openRuns?: {
    readonly query: string;
    /** The runs that move by continue-as-new when the eval's agent is auto-upgrade (pinned to other builds). */
    readonly upgrading?: string;
    readonly limit?: number;
  };
  /** Gates over the eval's own (`cairn deploy gate` thresholds). */
  readonly gates?: Gates;
}

export interface EvalProgress {
  readonly done: number;
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
}

/** Runs the evaluation and returns its report. Throws only for a module or setup that cannot be used; a bad case is a case error. */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  const started = Date.now();
  const modulePath = resolvePath(options.module);
  const exportName = options.exportName ?? 'default';
  const loaded = (await import(pathToFileURL(modulePath).href).catch((error: unknown) => {
    throw moduleLoadError(error, modulePath);
  })) as Record<string, unknown>;
  const definition = loaded[exportName];
  if (!isEvalDefinition(definition))
    throw new EvalInputError(
      `${options.module}: its \`${exportName}\` export is not a defineEval value (export default defineEval({ agent, candidate, cases })).`,
    );
  // In every lane run's id: another eval (module text or export) starts runs of its own, whether or not its bundle changed.
  const moduleDigest = createHash('sha256')
    .update(await readFile(modulePath))
    .update(`\0${exportName}`)
    .digest('hex');
  const loadedConverter = options.client.options.loadedDataConverter;
  const decoding: PayloadDecoding = {
    payloadCodecs: loadedConverter.payloadCodecs,
    payloadConverter: loadedConverter.payloadConverter,
  };
  const read = await loadCases(options.cases ?? definition.cases, definition.agent, {
    baseDir: options.cases ? process.cwd() : dirname(modulePath),
    client: options.client,
    decoding,
  });
  const taken = new Set(read.map((kase) => kase.id));
  const open = options.openRuns
    ? (
        await loadOpenCases(options.client, {
          ...options.openRuns,
          // Only the eval's agent's runs are its cases (a deploy gate replays the others).
          query: `(${
            options.openRuns.upgrading && definition.agent.versioning === 'auto-upgrade'
              ? `(${options.openRuns.query}) OR (${options.openRuns.upgrading})`
              : options.openRuns.query
          }) AND CairnAgent = ${JSON.stringify(definition.agent.name)}`,
          agent: definition.agent,
          decoding,
        })
      ).filter((kase) => !taken.has(kase.id))
    : [];
  // Children of agent tools serve their parents' runs; they are not cases of their own.
  const cases = [...read.filter((kase) => kase.childOf === undefined), ...open];
  const unusable = options.allowErrors ? undefined : caseErrors(cases);
  if (unusable) throw unusable;
  const recordings = new Map(
    [...read, ...open].flatMap((kase) =>
      kase.workflowId && kase.recording ? [[kase.workflowId, kase.recording] as const] : [],
    ),
  );
  const resolve = (spec: string): ModelClient => resolveModel(spec, options.models);
  // The place in the recorded turns is read from each lane run's history, where a resumed evaluation finds it.
  const runs = new LaneRegistry(recordings, (match) => scheduledBefore(options.client, decoding, match));
  const cacheDir = options.cacheDir === undefined ? evalCacheDir() : options.cacheDir;
  // Each lane bundles and starts once, when first needed; a worker that did start is stopped below whatever fails.
  // A candidate that changes no code (its model, policy or name) runs on the baseline's worker: one bundle, one worker.
  const both = candidateAgent(definition.agent, definition.candidate) === definition.agent;
  const starting: Promise<Lane>[] = [];
  const workers = new Map<EvalLane, Promise<Lane>>();
  const lanes = Object.fromEntries(
    (['baseline', 'candidate'] as const).map((name) => {
      const code: EvalLane = both ? 'baseline' : name;
      const handle: LaneHandle = {
        lane: name,
        tools: laneTools(
          name === 'baseline' ? definition.agent : candidateAgent(definition.agent, definition.candidate),
        ),
        started: () => {
          let lane = workers.get(code);
          if (!lane) {
            lane = startLane(code, modulePath, exportName, definition, runs, { ...options, cacheDir }, both);
            workers.set(code, lane);
            starting.push(lane);
          }
          return lane;
        },
      };
      return [name, handle];
    }),
  ) as Record<EvalLane, LaneHandle>;
  try {
    const mode = definition.tools ?? 'strict';
    let cache: BaselineCache | undefined;
    if (cacheDir) {
      // The baseline's digest from the candidate's bundle (both bundle the same module); its lane starts only for a baseline not kept.
      const candidate = await lanes.candidate.started();
      if (candidate.agentDigest) cache = new BaselineCache(cacheDir, candidate.agentDigest);
      if (!cache || cases.some((kase) => !kase.error && !cache!.has(baselineKey(cache!, kase, definition, recordings))))
        await lanes.baseline.started();
    } else await Promise.all([lanes.baseline.started(), lanes.candidate.started()]);
    const reports: CaseReport[] = [];
    const progress = { done: 0, total: cases.length, passed: 0, failed: 0, errors: 0 };
    const harness = {
      runs,
      mode,
      client: options.client,
      decoding,
      resolve,
      timeoutMs: options.caseTimeoutMs ?? 15 * 60_000,
      moduleDigest,
      ...(cache && { cache }),
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
    const gated = options.gates ? { ...definition, gates: { ...definition.gates, ...options.gates } } : definition;
    return summarised(gated, mode, reports, started, options.allowErrors ?? false);
  } finally {
    const started = (await Promise.allSettled(starting)).flatMap((lane) =>
      lane.status === 'fulfilled' ? [lane.value] : [],
    );
    await Promise.allSettled(started.map((lane) => lane.release()));
  }
}

async function pool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker));
}

/** A lane as the cases use it: its tools at once, its worker once a case needs it. */
interface LaneHandle {
  readonly lane: EvalLane;
  readonly tools: ReadonlyMap<string, AnyTool>;
  started(): Promise<Lane>;
}

/** The key of a recorded case's baseline: its run input and every recording it is served from (its children's too). */
function baselineKey(
  cache: BaselineCache,
  kase: EvalCase,
  definition: EvalDefinition,
  recordings: ReadonlyMap<string, Recording>,
): string | undefined {
  if (!kase.recording || !kase.workflowId) return undefined;
  const children = [...recordings]
    .filter(([id]) => id.startsWith(`${kase.workflowId}/`))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return cache.key([
    canonicalJson(laneInput(kase, definition, 'baseline')),
    canonicalJson(kase.recording as unknown as JsonValue),
    ...children.map((child) => canonicalJson(child as unknown as JsonValue)),
  ]);
}

/** What every case's lane runs share. */
interface Harness {
  readonly runs: LaneRegistry;
  readonly mode: ToolMode;
  readonly client: Client;
  readonly decoding: PayloadDecoding;
  readonly resolve: (spec: string) => ModelClient;
  readonly timeoutMs: number;
  /** The eval module's text and the export evaluated, hashed: part of every lane run's id. */
  readonly moduleDigest: string;
  /** Baselines kept between evaluations (baseline-cache.ts). */
  readonly cache?: BaselineCache;
}

async function evaluateCase(
  kase: EvalCase,
  definition: EvalDefinition,
  lanes: Readonly<Record<EvalLane, LaneHandle>>,
  harness: Harness,
): Promise<CaseReport> {
  const prompt = kase.recording?.prompt ?? kase.dataset?.prompt ?? '';
  if (kase.error) return { id: kase.id, source: kase.source, prompt, error: kase.error, pass: false };
  let recorded = kase.recording && traceOf(kase.recording);
  let baselineDone: (value?: unknown) => void = () => {};
  const answers = new CaseAnswers(
    kase.recording,
    new Promise((resolve) => (baselineDone = resolve)),
    kase.dataset?.answers,
  );
  let [baseline, candidate] = await Promise.all([
    runLane(lanes.baseline, kase, recorded, definition, answers, harness).finally(baselineDone),
    runLane(lanes.candidate, kase, recorded, definition, answers, harness),
  ]);
  if (kase.open && kase.recording)
    ({ recorded, baseline, candidate } = settleOpenCase(
      kase.recording,
      { baseline, candidate },
      (definition.scorers ?? []).length > 0,
    ));
  const drift = recorded ? diffDecisions(recorded, baseline.trace) : undefined;
  return {
    id: kase.id,
    source: kase.source,
    ...(kase.open && { open: true }),
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
  lane: LaneHandle,
  kase: EvalCase,
  /** The recorded run's decisions (none for a dataset case). */
  recorded: DecisionTrace | undefined,
  definition: EvalDefinition,
  answers: CaseAnswers,
  { runs, mode, client, decoding, resolve, timeoutMs, moduleDigest, cache }: Harness,
): Promise<LaneReport> {
  const input = laneInput(kase, definition, lane.lane);
  const serving = new LaneRun(kase.id, lane.lane, kase.recording, mode, lane.tools, kase.workflowId);
  const cacheKey =
    cache && lane.lane === 'baseline' ? baselineKey(cache, kase, definition, runs.recordings) : undefined;
  const cached = cacheKey ? await cache!.get(cacheKey) : undefined;
  for (const [question, answer] of cached?.answers ?? []) answers.took(lane.lane, question, answer);
  const ran = cached
    ? { ...cached, reused: true }
    : await runOnServer(await lane.started(), lane.lane, kase, input, serving, answers, {
        runs,
        client,
        decoding,
        timeoutMs,
        moduleDigest,
      });
  const { workflowId, events, newAsks, reused } = ran;
  const recording = recordingOf(events);
  const unanswered = {
    clarifications: newAsks.filter((ask) => ask.kind === 'clarification').length,
    reviews: newAsks.filter((ask) => ask.kind === 'review').length,
    budgets: newAsks.filter((ask) => ask.kind === 'budget').length,
  };
  const trace = traceOf(recording, unanswered);
  const expected = kase.dataset ? (kase.dataset.expected ?? null) : (recorded?.answer ?? null);
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
  // From the run's history, not from what this process served: a run an earlier (killed) evaluation began, or reused, counts the same.
  const servedCalls = serving.servedIn(recording.toolRuns);
  const served = { recorded: 0, nearest: 0, live: 0, refused: 0 };
  for (const item of servedCalls) served[item.how]++;
  const mismatches = servedCalls.flatMap((item) =>
    item.how === 'nearest'
      ? [`${item.tool}: ${item.mismatch}`]
      : item.how === 'refused'
        ? [`${item.tool}: ${item.why}`]
        : [],
  );
  // Only what the recording alone decided is kept: no tool ran live, and the run closed by itself;
  // and only a run served here from its start, whose people's answers this process saw.
  const closed = events.at(-1);
  if (
    cacheKey &&
    !cached &&
    !reused &&
    !serving.fromHistory &&
    served.live === 0 &&
    closed?.type === 'closed' &&
    !['terminated', 'timed_out'].includes(closed.status)
  )
    await cache!.put(cacheKey, {
      workflowId,
      events,
      newAsks,
      drift: ran.drift,
      answers: [...answers.byQuestion],
    });
  // From the run's history, as the results the tools gave: a reused run, or one an earlier (killed) evaluation began, has them too.
  const refused = refusedInHistory(recording);
  const expectedOutcome = recorded?.outcome ?? 'answered';
  const failures = [
    ...refused.map((item) => `${item.tool}: ${'why' in item ? item.why : 'not in the recording'}`),
    ...ran.drift,
    ...newAsks.map(askFailure),
    ...scores
      .filter((score) => !score.pass)
      .map((score) => `${score.name}: ${score.reason ?? `scored ${score.score}`}`),
    ...((definition.scorers ?? []).length === 0 && trace.outcome !== expectedOutcome
      ? [outcomeFailure(trace.outcome, expectedOutcome)]
      : []),
  ];
  // Beside the effects a narrowed schema has (refused calls, new questions): which field of which call.
  const misfits = lane.lane === 'candidate' ? schemaMisfits(kase.recording, lane.tools) : [];
  return {
    workflowId,
    trace,
    scores,
    pass: failures.length === 0,
    failures,
    newAsks: [...newAsks],
    served,
    mismatches,
    misfits,
    reused,
  };
}

/** Runs (or picks up, or reuses) a lane run of the case on the server, and reads its history once it has closed. */
async function runOnServer(
  lane: Lane,
  /** The lane the run is of (a baseline lane's worker may serve the candidate's runs too). */
  laneName: EvalLane,
  kase: EvalCase,
  input: JsonObject,
  serving: LaneRun,
  answers: CaseAnswers,
  {
    runs,
    client,
    decoding,
    timeoutMs,
    moduleDigest,
  }: Pick<Harness, 'runs' | 'client' | 'decoding' | 'timeoutMs' | 'moduleDigest'>,
): Promise<{ workflowId: string; events: EvalEvent[]; newAsks: NewAsk[]; reused: boolean; drift: string[] }> {
  const key = createHash('sha256')
    .update(
      `${lane.codeHash}\0${moduleDigest}\0${canonicalJson(input)}\0${kase.id}\0${kase.recording ? canonicalJson(kase.recording as unknown as JsonValue) : ''}`,
    )
    .digest('hex')
    .slice(0, 20);
  const workflowId = `cairn-eval-${laneName}-${key}`;
  runs.set(workflowId, serving);
  try {
    let reused = false;
    const handle = client.workflow.getHandle<AgentRunWorkflow>(workflowId);
    try {
      await client.workflow.start('agentRun', {
        taskQueue: lane.taskQueue,
        workflowId,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        // A run that cannot finish (a workflow task that keeps failing, a wait nobody ends) closes, and says so.
        workflowExecutionTimeout: timeoutMs,
        memo: { cairnEval: { case: kase.id, lane: laneName } },
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      // Begun by an earlier evaluation of this very code and case: in flight (a crash), picked up from its history; or closed, reused.
      if ((await handle.describe()).status.name === 'RUNNING') serving.fromHistory = true;
      else reused = true;
    }
    const asked = reused ? undefined : await answerPeople(handle, laneName, answers);
    await handle.result().catch(() => undefined);
    const events = await historyEvents(await handle.fetchHistory(), decoding);
    // Whom it would have asked: this process's asks, else the cancel an earlier evaluation sent (in the history).
    const newAsks = asked?.length ? asked : asksInHistory(events);
    return { workflowId, events, newAsks, reused, drift: [...serving.drift] };
  } finally {
    runs.delete(workflowId);
  }
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
