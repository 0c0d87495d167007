/**
 * Takes one planner step with Temporal: the model activity, tool activities, a durable timer, or a
 * wait for a person. Reports what happened, or nothing when woken early (a cancel, a pause, a
 * hand-over: the loop's control deals with those). Decides nothing. Workflow code (sandbox).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AnyTool } from '../shared/tools/define-tool.js';
import type { ModelOutcome, ModelRequest } from '../shared/model/model-response.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import { agentOf } from '../shared/tools/agent-tool.js';
import { fromError } from '../shared/failures/tool-error.js';
import { assertNever } from '../shared/assert-never.js';
import { checkModelOutcome } from '../shared/model/model-outcome-check.js';
import { TRANSCRIPT_UNAVAILABLE } from '../shared/model/transcript.js';
import type { TranscriptLog } from './transcript-log.js';
import type { ChildRuns } from './child-runs.js';
import {
  clarificationTimeLeft,
  tenantAllowanceLeft,
  type Happening,
  type PlanStep,
  type PlannerState,
} from '../planner/index.js';
import type { RunInbox } from './run-inbox.js';
import type { BudgetRequests } from './budget-requests.js';
import { dispatch } from './tool-dispatch.js';
import { reconcileCalls } from './reconcile-dispatch.js';
import { modelTurnSummary, summaryLine, toolCallNote } from './run-details.js';
import type { CheckedWorkspaceConfig } from '../shared/workspace/workspace-config.js';
import type { RunToolResult } from '../shared/tools/run-tool-input.js';

/** The model activity's options: 5xx and network errors throw and are retried; classified failures come back as values. */
export const MODEL_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2m',
  // The model activity heartbeats while the provider answers: a dead worker is noticed in seconds, not at 2 minutes.
  heartbeatTimeout: '10s',
  retry: { maximumAttempts: 5, initialInterval: '1s', nonRetryableErrorTypes: ['ModelConfigError'] },
};

/** Tool activities scheduled together; a change reorders commands of runs in flight. */
const MAX_ACTIVITIES_PER_WAVE = 32;

const { callModel } = proxyActivities<{ callModel(request: ModelRequest): Promise<ModelOutcome> }>(
  MODEL_ACTIVITY_OPTIONS,
);

/** Failures of the model activity that no retry, back-off or other turn can fix: the run fails with them. */
const UNUSABLE_MODEL_TYPES = ['ModelConfigError', 'ScriptExhaustedError'];

const isTranscriptUnavailable = (err: unknown): boolean =>
  err instanceof ActivityFailure &&
  err.cause instanceof ApplicationFailure &&
  err.cause.type === TRANSCRIPT_UNAVAILABLE;

/**
 * The run's failure when the model cannot be used at all (a missing API key, an unknown provider,
 * a scripted model out of steps): its type, the provider's message and the details naming the
 * settings it needs (activities/model-activity.ts), so the client, `cairn show` and the UI say so.
 */
function unusableModel(err: unknown, model: string): ApplicationFailure | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || !UNUSABLE_MODEL_TYPES.includes(cause.type ?? '')) return undefined;
  const details = cause.details?.length ? cause.details : [{ model, needs: [] }];
  // A configuration the worker cannot use is the run end code `model_misconfigured`.
  const type = cause.type === 'ModelConfigError' ? 'model_misconfigured' : cause.type!;
  return ApplicationFailure.create({
    type,
    message: `The model "${model}" cannot be used: ${cause.message}`,
    nonRetryable: true,
    details,
    cause,
  });
}

export interface StepContext {
  readonly state: PlannerState;
  /**
   * How many activities this run has scheduled per stem, for ids unique within the run: each id
   * names what it does (`tool:2.1:search_orders:1`), so replaying a history whose calls were
   * scheduled in another order fails as nondeterministic instead of handing one call's result to another.
   */
  readonly scheduled: Map<string, number>;
  readonly inbox: RunInbox;
  readonly tools: ReadonlyMap<string, AnyTool>;
  /** The model spec the run uses. */
  readonly model: string;
  /** Child runs, for agent tools: where they are kept, and this run's depth and search attributes. */
  readonly children: {
    readonly runs: ChildRuns;
    readonly depth: number;
    readonly searchAttributes: boolean;
    readonly agentVersionAttribute?: boolean;
    readonly model: string;
    readonly tenant?: string | undefined;
    readonly user?: string | undefined;
  };
  /** True when the run should continue as new: long waits wake up for it. */
  readonly handOverDue: () => boolean;
  /** What the model reads this turn: how many messages, their epoch and digest (transcript-log.ts). */
  readonly transcript: Pick<TranscriptLog, 'length' | 'epoch' | 'digest' | 'handOverAgain'>;
  /** Resolves when a person's message interrupts the model call (onMessage: 'interrupt'). */
  readonly interrupted?: Promise<void>;
  /** Where a person's decision on a budget request waits (budget-requests.ts). */
  readonly budget?: BudgetRequests;
  /** The agent's workspace, when it has one: its calls carry the run's snapshot. */
  readonly workspace?: CheckedWorkspaceConfig | undefined;
}

/**
 * Resolves in the workflow's next round of condition checks, once every microtask of this round
 * has run. An Update handler that wakes the run completes a few microtasks later, and how many
 * depends on the interceptors around it (OpenTelemetry's add several): going on only after that
 * puts the Update's completion before the run's next commands with tracing on and off alike, so a
 * run replays on a worker with or without tracing.
 */
function updatesSettled(): Promise<void> {
  let checked = false;
  // False when first checked (now), true when checked again: in the next round.
  return condition(() => checked || ((checked = true), false));
}

/**
 * A scope that `cancel` cancels when it resolves; none registered when `cancel` is undefined (the
 * scope is then never cancelled itself, but still passes on its parent's cancel, as before).
 */
function scopeCancelledBy(cancel: Promise<unknown> | undefined): CancellationScope {
  const scope = new CancellationScope();
  if (cancel) void cancel.then(() => scope.cancel());
  return scope;
}

/** Runs `fn` in a scope that `cancel` cancels when it resolves. */
function inScope<T>(cancel: Promise<unknown> | undefined, fn: () => Promise<T>): Promise<T> {
  return scopeCancelledBy(cancel).run(fn);
}

export async function takeStep(
  step: PlanStep,
  {
    state,
    scheduled,
    inbox,
    tools,
    children,
    model,
    transcript,
    handOverDue,
    interrupted,
    budget,
    workspace,
  }: StepContext,
): Promise<Happening | undefined> {
  const activityId = (stem: string): { activityId: string } => {
    const n = (scheduled.get(stem) ?? 0) + 1;
    scheduled.set(stem, n);
    return { activityId: `${stem}:${n}` };
  };
  // Cut short by a cancel that arrives while it runs (not by one that came before: the final turn must run).
  const cancellable = <T>(fn: () => Promise<T>): Promise<T> => {
    if (inbox.cancelReason !== null) return fn();
    return inScope(inbox.cancelled, fn);
  };
  switch (step.type) {
    case 'call_model': {
      // The activity knows which run asks (activityInfo): only the chain's first run, once there is another.
      const { runId, firstExecutionRunId } = workflowInfo();
      const allowance = tenantAllowanceLeft(state);
      const request = (): ModelRequest => ({
        ...(firstExecutionRunId !== runId && { firstExecutionRunId }),
        transcriptLength: transcript.length,
        // Left out while 0, as before the context policy: the request stays what older runs recorded.
        ...(transcript.epoch > 0 && { transcriptEpoch: transcript.epoch }),
        transcriptDigest: transcript.digest,
        toolNames: step.tools,
        toolChoice: step.toolChoice,
        model,
        // The worker's per-tenant budgets check the run's tenant (runs of no tenant send none, as before).
        ...(children.tenant !== undefined && { tenant: children.tenant }),
        // What a person allowed this run past its tenant's spent window (a budget request extended), still unused.
        ...(children.tenant !== undefined && allowance && { tenantAllowance: allowance }),
      });
      // What this turn reacts to (the batch's failed calls, the planner's decisions): the tool activities completed either way.
      const options = {
        ...MODEL_ACTIVITY_OPTIONS,
        summary: modelTurnSummary(state, step.toolChoice),
        ...activityId(`model:${state.turn + 1}`),
      };
      try {
        // Checked again here: a model client is a public extension point, and nothing it returns may break the run.
        // What the run handed its workers came back wrong (a store holding another value, a cut
        // one): handed over again, once, and the turn asked again; never a wrong transcript.
        const call = () =>
          callModel.executeWithOptions(options, [request()]).catch((err: unknown) => {
            if (!isTranscriptUnavailable(err)) throw err;
            transcript.handOverAgain();
            return callModel.executeWithOptions(options, [request()]);
          });
        // An interrupting message cuts the call short like a cancel; the loop delivers it and calls again.
        // The scope stays when the policy never interrupts (a cancel passes through it: the same turns,
        // the same order of commands), but nothing waits on the message then.
        const interruptible = interrupted
          ? () => inScope(state.policy.onMessage === 'interrupt' ? interrupted : undefined, call)
          : call;
        const outcome = checkModelOutcome(await cancellable(interruptible));
        // The jitter of a wait for the provider: the sandbox's Math.random is seeded per run, so a replay draws the same.
        return {
          type: 'model_outcome',
          outcome,
          call: options.activityId,
          model,
          ...(outcome.status === 'error' && { random: Math.random() }),
        };
      } catch (err) {
        if (isCancellation(err)) return undefined; // the loop acts on the cancel
        const unusable = unusableModel(err, model);
        // A soft end (policy onModelFailure: 'end'): the planner completes the run with the code instead.
        if (unusable && unusable.type === 'model_misconfigured' && state.policy.onModelFailure === 'end')
          return {
            type: 'model_outcome',
            outcome: { status: 'error', error: fromError(err, 'internal_error'), failure: 'misconfigured' },
            model,
          };
        if (unusable) throw unusable;
        // Retries exhausted (a provider down for minutes, a worker that cannot call it): the planner waits for it, up to the run's patience.
        return {
          type: 'model_outcome',
          outcome: { status: 'error', error: fromError(err, 'internal_error'), failure: 'unavailable' },
          model,
          random: Math.random(),
        };
      }
    }
    case 'execute_tools': {
      const ids = (call: ToolCall) => ({
        ...activityId(`tool:${call.toolCallId}:${call.name}`),
        note: toolCallNote(call, state, inbox.decisions[call.toolCallId]?.decision),
      });
      // One scope for a wave's cancellable calls, each run in it as in a scope of its own: the same
      // turns to its result and to its cancel, and cancels in the order the calls were scheduled, for
      // fewer promises (each costs the SDK a formatted stack). Not beside an agent tool: its child
      // hears the cancel between the calls before and after it, and one scope would cancel both first.
      const isCancellable = (call: ToolCall) => {
        const tool = tools.get(call.name)!;
        return !agentOf(tool) && tool.sideEffects !== 'once';
      };
      const waveScope = (wave: readonly ToolCall[]): CancellationScope | undefined =>
        inbox.cancelReason === null && wave.some(isCancellable) && !wave.some((call) => agentOf(tools.get(call.name)!))
          ? scopeCancelledBy(inbox.cancelled)
          : undefined;
      const run = (call: ToolCall, scope?: CancellationScope): Promise<ToolResult> => {
        const tool = tools.get(call.name)!;
        const agent = agentOf(tool);
        if (agent) return children.runs.run(call, agent, children, inbox.cancelled);
        // A 'once' call runs to its end: cut short, nobody could tell whether it happened.
        if (tool.sideEffects === 'once')
          return dispatch(call, tool, ids(call), state.batch?.onceKeys?.[call.toolCallId]);
        if (scope) return scope.run(() => dispatch(call, tool, ids(call)));
        return cancellable(() => dispatch(call, tool, ids(call)));
      };
      // Workspace calls run one after another, each on the snapshot the one before left (docs/workspaces.md).
      const done = new Map<ToolCall, ToolResult>();
      let digest = state.workspace;
      const inWorkspace = (call: ToolCall) => workspace !== undefined && tools.get(call.name)?.workspace === true;
      const inOrder = step.calls.filter(inWorkspace);
      // No chain without a workspace call (an already settled promise would only cost promises, no turn).
      const chain =
        inOrder.length === 0
          ? undefined
          : inOrder.reduce(async (before: Promise<void>, call) => {
              await before;
              const workspaceCall = { ...workspace!, ...(digest !== undefined && { digest }) };
              const { workspace: after, ...result }: RunToolResult = await cancellable(() =>
                dispatch(call, tools.get(call.name)!, ids(call), undefined, workspaceCall),
              );
              if (after !== undefined) digest = after;
              done.set(call, result as ToolResult);
            }, Promise.resolve());
      // The others in waves: one workflow task never schedules more activities than the server takes at once.
      const others = step.calls.filter((call) => !inWorkspace(call));
      const waves = async () => {
        for (let i = 0; i < others.length; i += MAX_ACTIVITIES_PER_WAVE) {
          const wave = others.slice(i, i + MAX_ACTIVITIES_PER_WAVE);
          const scope = waveScope(wave);
          for (const [j, result] of (await Promise.all(wave.map((call) => run(call, scope)))).entries())
            done.set(wave[j]!, result);
        }
      };
      await Promise.all(chain ? [waves(), chain] : [waves()]);
      const results = step.calls.map((call) => done.get(call)!);
      return {
        type: 'tool_results',
        results,
        ...(digest !== undefined && digest !== state.workspace && { workspace: digest }),
      };
    }
    case 'reconcile':
      // Not cut short by a cancel: what it finds settles calls that may have taken effect.
      return { type: 'reconciled', reports: await reconcileCalls(step.calls, activityId) };
    case 'back_off': {
      const summary = summaryLine(
        `${step.reason}${step.delayMs >= 1000 ? `, ${(step.delayMs / 1000).toFixed(1)} s` : `, ${step.delayMs} ms`}`,
      );
      // A timer that a cancel cuts short: a long retry-after must not keep a cancelled run waiting.
      // Not once the run finishes (finalizing): the cancel was acted on, and cutting every back-off
      // short would take this step again at once, for ever.
      const cut = () => inbox.cancelReason !== null && state.finalizing === null;
      await condition(cut, step.delayMs, { summary });
      return cut() ? undefined : { type: 'backoff_elapsed' };
    }
    case 'await_clarification': {
      // Also wakes to hold for a pause and to continue as new when the server suggests it.
      const until = () => inbox.answer !== undefined || inbox.cancelReason !== null || inbox.holding() || handOverDue();
      const left = clarificationTimeLeft(state, Date.now());
      const summary = summaryLine(`waiting for an answer to ${step.clarification.id}: ${step.clarification.question}`);
      const woken = left === null ? (await condition(until), true) : await condition(until, left, { summary });
      await updatesSettled();
      if (inbox.cancelReason !== null) {
        inbox.takeAnswer(); // the run is finishing; nobody will ask again
        return undefined;
      }
      // An answer that raced the timeout still wins: it was accepted, so it is used.
      const answer = inbox.takeAnswer();
      if (answer !== undefined) return { type: 'answered', answer };
      return woken ? undefined : { type: 'clarification_timed_out' };
    }
    case 'await_review': {
      await condition(() => inbox.decided(state) || inbox.cancelReason !== null || handOverDue());
      await updatesSettled();
      if (inbox.cancelReason !== null || !inbox.decided(state)) return undefined;
      return { type: 'reviewed', decisions: inbox.reviewDecisions() };
    }
    case 'await_budget': {
      // Also wakes to continue as new when due; the request is carried and asked again.
      await condition(() => budget?.decision !== undefined || inbox.cancelReason !== null || handOverDue());
      await updatesSettled();
      if (inbox.cancelReason !== null) return undefined;
      const decision = budget?.take();
      return decision ? { type: 'budget_decided', decision } : undefined;
    }
    case 'finish':
      return undefined;
    default:
      return assertNever(step, 'step');
  }
}
