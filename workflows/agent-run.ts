/**
 * agentRun: one durable agent run. The loop asks the planner what to do, does it (model turn,
 * tool activities, durable timers, human waits), and hands the outcome back. All decisions are
 * the planner's; this file is Temporal glue: handlers, timers, UI details, continue-as-new.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  type ActivityOptions,
  condition,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Agent } from '../shared/define-agent.js';
import { DefinitionError } from '../shared/definition-error.js';
import type { JsonValue } from '../shared/json.js';
import type { ModelOutcome, ModelRequest } from '../shared/model-response.js';
import type { TranscriptMessage } from '../shared/transcript.js';
import { toModelView } from '../shared/model-view.js';
import { checkToolCall } from '../shared/validate-arguments.js';
import { needsApproval } from '../shared/define-tool.js';
import {
  planCancel,
  planClarificationAnswer,
  planClarificationTimeout,
  planModelOutcome,
  planResume,
  planReviewed,
  planStart,
  planToolCalls,
  resolvePolicy,
  type CheckedCall,
  type Plan,
} from '../planner/index.js';
import { CairnAgent, CairnPhase } from './search-attributes.js';
import { dispatch } from './tool-dispatch.js';
import { describeStep, runDetails, runState } from './run-details.js';
import { compactTranscript } from './compact-transcript.js';
import { HumanInputError, validateAnswer, validateReview, type DecidedReview } from './human-input.js';
import {
  answerClarificationSignal,
  answerClarificationUpdate,
  cancelSignal,
  pauseSignal,
  resumeSignal,
  reviewToolCallUpdate,
  stateQuery,
  transcriptQuery,
  untilIdleUpdate,
  type AgentRunInput,
  type AgentRunResult,
  type ClarificationAnswer,
  type StepLogEntry,
} from './messages.js';

/** The model activity's options: 5xx and network errors throw and are retried; classified failures come back as values. */
export const MODEL_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2m',
  retry: { maximumAttempts: 5, initialInterval: '1s', nonRetryableErrorTypes: ['ModelConfigError', 'ScriptExhaustedError'] },
};

const { callModel } = proxyActivities<{ callModel(request: ModelRequest): Promise<ModelOutcome> }>(MODEL_ACTIVITY_OPTIONS);

/**
 * Builds the `agentRun` workflow over a fixed set of agents (bundled with the workflow code).
 * Only the agents' contracts are used here: tools' `execute` is never called in a workflow.
 */
export function defineAgentRun(agents: readonly Agent[]) {
  const twice = agents.find((a, i) => agents.findIndex((b) => b.name === a.name) !== i);
  if (twice) throw new DefinitionError('duplicate_agent_name', `Two agents are named "${twice.name}"; agent names must be unique.`);
  const byName = new Map(agents.map((a) => [a.name, a]));
  return async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
    const agent = byName.get(input.agent);
    if (!agent) throw ApplicationFailure.nonRetryable(`Unknown agent "${input.agent}". Known: ${[...byName.keys()].join(', ')}`, 'unknown_agent');
    const tools = new Map(agent.tools.map((t) => [t.name, t]));
    const policy = resolvePolicy(agent.policy, input.policy);
    const model = input.model ?? agent.model ?? 'scripted:default';
    const generation = input.carried?.generation ?? 0;

    const transcript: TranscriptMessage[] = input.carried
      ? [...input.carried.transcript]
      : [
          { role: 'system', content: agent.instructions },
          { role: 'user', content: input.prompt },
        ];
    let plan: Plan = input.carried
      ? { state: input.carried.state, step: input.carried.step, record: [], notes: [] }
      : planStart({ policy, tools: [...tools.keys()], now: Date.now() });
    let state = plan.state;
    let paused = false;
    let cancelReason: string | null = null;
    // Cancel overrides pause: a paused run that is cancelled still finishes.
    const holding = () => paused && cancelReason === null;
    let handingOver = false;
    // Human input received but not yet acted on; carried across continue-as-new so none is lost.
    let answer: JsonValue | undefined = input.carried?.answer;
    let finalAnswer: string | null = null;
    const decisions: Record<string, DecidedReview> = { ...input.carried?.decisions };
    const startTurn = input.carried?.state.turn ?? 0;

    const steps: StepLogEntry[] = [...(input.carried?.steps ?? [])];
    let seq = steps.at(-1)?.seq ?? 0;
    const snapshot = () => runState({ agent: agent.name, state, paused, finalAnswer, transcriptLength: transcript.length, generation, continuingAsNew: handingOver, steps });
    setHandler(stateQuery, snapshot);
    const idle = () =>
      finalAnswer !== null ||
      handingOver ||
      holding() ||
      (state.phase === 'awaiting_clarification' && answer === undefined) ||
      (state.phase === 'awaiting_review' && state.reviews.some((r) => !decisions[r.toolCallId]));
    setHandler(untilIdleUpdate, async () => (await condition(idle), snapshot()), {
      description: 'Wait until the run awaits a human, is paused, has finished or continues as new; returns its state.',
    });
    setHandler(transcriptQuery, ({ from = 0, length }) => transcript.slice(from, length));
    setHandler(answerClarificationUpdate, (a: ClarificationAnswer) => void (answer = a.answer), {
      validator: (a: ClarificationAnswer) => {
        validateAnswer(state.clarification, a);
        // A second answer would silently replace the first, and its sender would never know.
        if (answer !== undefined) throw new HumanInputError('This question was already answered; the run is acting on that answer.');
      },
      description: 'Answer the pending clarification: { id, answer }.',
    });
    setHandler(answerClarificationSignal, (a: ClarificationAnswer) => {
      // Signals cannot be refused; an invalid one is dropped and the question stays open.
      try {
        validateAnswer(state.clarification, a);
        answer ??= a.answer;
      } catch {
        /* ignored: visible in history as the signal itself */
      }
    });
    setHandler(
      reviewToolCallUpdate,
      (r) => {
        const decided = validateReview(state.reviews, decisions, tools, r);
        if (decided) decisions[r.toolCallId] = decided; // undefined: the same decision again, a no-op
      },
      {
        validator: (r) => void validateReview(state.reviews, decisions, tools, r),
        description: 'Decide a pending tool call: accept, edit (new args), respond (content), reject (reason).',
      },
    );
    setHandler(pauseSignal, () => void (paused = true));
    setHandler(resumeSignal, () => void (paused = false));
    // Signals cannot be refused, and a handler that throws would wedge the run: take any payload.
    setHandler(cancelSignal, (reason?: unknown) => void (cancelReason = (typeof reason === 'string' && reason.trim()) || 'cancelled by a user'));

    if (input.searchAttributes) upsertSearchAttributes([{ key: CairnAgent, value: agent.name }]);
    let lastPhase = '';
    let lastStep: Plan['step'] | undefined;

    for (;;) {
      // Apply the plan: what it recorded goes into the transcript, then its notes.
      const asked = plan.record.length ? transcript.findLast((m) => m.role === 'assistant') : undefined;
      for (const result of plan.record) {
        const call = asked?.role === 'assistant' ? asked.toolCalls.find((c) => c.toolCallId === result.toolCallId) : undefined;
        transcript.push({
          role: 'tool',
          toolCallId: result.toolCallId,
          ...(call?.providerCallId ? { providerCallId: call.providerCallId } : {}),
          name: result.name,
          content: toModelView(result),
        });
      }
      if (plan.notes.length > 0) transcript.push({ role: 'user', content: `[cairn] ${plan.notes.join(' ')}` });
      state = plan.state;
      const step = plan.step;
      const fresh = plan.record.length > 0 || plan.notes.length > 0 || step !== lastStep;
      // Applied once: re-entering the loop for the same plan (pause, cancel) must not repeat it.
      plan = { ...plan, record: [], notes: [] };
      lastStep = step;
      if (input.searchAttributes && state.phase !== lastPhase) upsertSearchAttributes([{ key: CairnPhase, value: state.phase }]);
      lastPhase = state.phase;
      if (fresh) {
        const { action, detail } = describeStep(step, state);
        // Clipped: the log travels with every continue-as-new and every state snapshot.
        steps.push({ seq: ++seq, turn: state.turn, at: transcript.length, action, detail: detail.slice(0, 300) });
        if (steps.length > 50) steps.shift();
      }
      setCurrentDetails(runDetails(snapshot()));

      if (step.type === 'finish') {
        finalAnswer = step.answer;
        setCurrentDetails(runDetails(snapshot()));
        await condition(allHandlersFinished);
        return { answer: step.answer, reason: step.reason, turns: state.turn, toolCalls: state.toolCallsUsed, generation };
      }
      if (cancelReason !== null && !state.finalizing) {
        plan = planCancel(state, cancelReason, Date.now());
        continue;
      }
      if (holding()) {
        const since = Date.now();
        await condition(() => !holding());
        const pausedMs = Date.now() - since;
        // Counted once as human time; a pending question's clock stops while paused.
        state = {
          ...state,
          humanWaitMs: state.humanWaitMs + pausedMs,
          ...(state.waitingSince !== null && { waitingSince: state.waitingSince + pausedMs }),
        };
        plan = { ...plan, state };
        continue;
      }
      const every = input.continueAsNewAfterTurns;
      const turnsDue = typeof every === 'number' && every > 0 && state.turn - startTurn >= every;
      if ((workflowInfo().continueAsNewSuggested || turnsDue) && (step.type === 'call_model' || step.type.startsWith('await'))) {
        handingOver = true; // lets a waiting untilIdle return, so its handler can finish
        await condition(allHandlersFinished);
        handingOver = false;
        if ((cancelReason !== null && !state.finalizing) || holding()) continue; // arrived while handing over: act on it here
        return continueAsNew<typeof agentRun>({
          ...input,
          carried: {
            state,
            step,
            transcript: compactTranscript(transcript),
            generation: generation + 1,
            ...(answer !== undefined && { answer }),
            ...(Object.keys(decisions).length > 0 && { decisions }),
            steps,
          },
        });
      }

      switch (step.type) {
        case 'call_model': {
          const request: ModelRequest = {
            workflowId: workflowInfo().workflowId,
            runId: workflowInfo().runId,
            firstExecutionRunId: workflowInfo().firstExecutionRunId,
            transcriptLength: transcript.length,
            toolNames: step.tools,
            toolChoice: step.toolChoice,
            model,
          };
          const outcome = await callModel.executeWithOptions(
            { ...MODEL_ACTIVITY_OPTIONS, summary: `model turn ${state.turn + 1}${state.finalizing ? ' (final)' : ''}` },
            [request],
          );
          plan = planModelOutcome(state, outcome);
          if (plan.step.type === 'finish' && outcome.status === 'ok' && plan.step.answer)
            transcript.push({ role: 'assistant', content: plan.step.answer, toolCalls: [] });
          if (plan.step.type === 'check_tool_calls' && outcome.status === 'ok') {
            const turn = plan.state.turn;
            const checked: CheckedCall[] = plan.step.calls.map((raw, i) => {
              const c = checkToolCall(raw, agent.tools, { toolCallId: `${turn}.${i + 1}` });
              const tool = c.failure ? undefined : tools.get(c.call.name);
              return {
                call: c.call,
                key: `${c.call.name}#${c.argsHash}`,
                sideEffects: tool?.sideEffects ?? 'none',
                needsApproval: tool ? needsApproval(tool, c.call.args) : false,
                ...(c.failure ? { failure: c.failure } : {}),
              };
            });
            transcript.push({ role: 'assistant', content: outcome.response?.text ?? '', toolCalls: checked.map((c) => c.call) });
            plan = planToolCalls(plan.state, checked, Date.now());
          }
          break;
        }
        case 'execute_tools': {
          const results = await Promise.all(step.calls.map((call) => dispatch(call, tools.get(call.name)!)));
          plan = planResume(state, results, Date.now());
          break;
        }
        case 'back_off': {
          const summary = `${step.reason}${step.delayMs >= 1000 ? `, ${(step.delayMs / 1000).toFixed(1)} s` : `, ${step.delayMs} ms`}`;
          // A timer that a cancel cuts short: a long retry-after must not keep a cancelled run waiting.
          await condition(() => cancelReason !== null, step.delayMs, { summary });
          if (cancelReason !== null) continue;
          plan = { state: { ...state, phase: step.next.type === 'call_model' ? 'model' : 'tools' }, step: step.next, record: [], notes: [] };
          break;
        }
        case 'await_clarification': {
          const timeout = policy.clarificationTimeoutMs;
          // Also wakes to hold for a pause (the question's clock stops at the top of the loop) and
          // to continue as new when the server suggests it during a long wait.
          const until = () => answer !== undefined || cancelReason !== null || holding() || workflowInfo().continueAsNewSuggested;
          const summary = `waiting for an answer: ${step.clarification.question}`.slice(0, 200);
          // Measured from when the question was asked, so a continue-as-new does not restart the clock.
          const left = timeout === null ? null : Math.max(1, timeout - (Date.now() - (state.waitingSince ?? Date.now())));
          const woken = left === null ? (await condition(until), true) : await condition(until, left, { summary });
          if (cancelReason !== null) {
            answer = undefined; // the run is finishing; nobody will ask again
            continue;
          }
          if (answer === undefined && woken) continue; // a pause or a hand-over: the top of the loop deals with it
          // An answer that raced the timeout still wins: it was accepted, so it is used.
          plan = answer !== undefined ? planClarificationAnswer(state, answer, Date.now()) : planClarificationTimeout(state, Date.now());
          answer = undefined; // consumed; the validator only admits answers to the pending id
          break;
        }
        case 'await_review': {
          const decided = () => state.reviews.every((r) => decisions[r.toolCallId]);
          await condition(() => decided() || cancelReason !== null || workflowInfo().continueAsNewSuggested);
          if (cancelReason !== null || !decided()) continue; // cancelled, or a hand-over at the top of the loop
          plan = planReviewed(state, Object.fromEntries(Object.entries(decisions).map(([id, d]) => [id, d.decision])), Date.now());
          break;
        }
        case 'check_tool_calls':
          throw ApplicationFailure.nonRetryable('check_tool_calls is handled with the model turn', 'cairn_bug');
      }
    }
  };
}
