/**
 * Cairn's workflow interceptors for OpenTelemetry: the planner's decisions on the spans that
 * @temporalio/interceptors-opentelemetry makes in the workflow. Bundled after that package's own
 * workflow interceptors, and only for a worker that traces (runtime/tracing.ts): its module sets up
 * a tracer provider inside the sandbox, so `@opentelemetry/api` here reaches the live spans.
 *
 * - RunWorkflow:agentRun gets `cairn.agent` and, when the run ends, `cairn.finish.reason`,
 *   `cairn.turns`, `cairn.tool_calls` and a `cairn.planner` event with action `finish`.
 * - StartActivity:callModel gets `cairn.model`, `cairn.planner.action` (`model`, `repair` when the
 *   turn is restricted to one tool, `final`) and a `cairn.planner` event `disable` for each tool
 *   offered to the previous turn and not to this one (the planner disabled it).
 * - StartActivity:runTool gets `cairn.tool`, `cairn.tool_call_id` and action `run_tools`; every
 *   StartActivity gets `cairn.summary`, the line the Temporal UI shows for the activity.
 * - Durable timers become spans: `Timer:back_off` (the planner waits before retrying a call) and
 *   `Timer:clarify` (a question with a deadline), with the timer's summary and duration.
 *
 * Adds no yield and draws no random number the workflow sees: the workflow's commands are the
 * same with tracing on or off. Workflow code (sandbox), deterministic.
 */
import { context, trace, type Attributes, type Span } from '@opentelemetry/api';
import type {
  ActivityInput,
  Next,
  TimerInput,
  WorkflowExecuteInput,
  WorkflowInterceptors,
  WorkflowInboundCallsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type { ModelRequest } from '../shared/model/model-response.js';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import type { AgentRunInput, AgentRunResult } from './contract/agent-run.js';
import { modelTurnAction, type StepAction } from '../planner/index.js';
import { TOOL_ACTIVITY_TYPES } from '../shared/tools/once-fence.js';

/** A string a bundle made with these interceptors contains (runtime/tracing.ts checks prebuilt bundles for it). */
export const TRACING_BUNDLE_MARKER = 'cairn-tracing-interceptors/1';

const TRACER = 'cairn-agents';

/** What the interceptors of one workflow execution share. */
interface Execution {
  /** True for an agent run (any workflow type `defineAgentRun` made): its input names an agent and a prompt. */
  agentRun: boolean;
}

/** The planner's decision as an event on `span`: a step's action, or a tool it took away (`disable`). */
function decision(span: Span | undefined, action: StepAction | 'disable', attributes: Attributes = {}): void {
  span?.addEvent('cairn.planner', { 'cairn.planner.action': action, ...attributes });
}

class CairnInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly execution: Execution) {}

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const run = input.args[0] as Partial<AgentRunInput> | undefined;
    this.execution.agentRun = typeof run?.agent === 'string' && typeof run.prompt === 'string';
    if (!this.execution.agentRun) return next(input);
    const span = trace.getActiveSpan(); // RunWorkflow:agentRun
    span?.setAttributes({
      'cairn.agent': run!.agent!,
      ...(typeof run?.model === 'string' && { 'cairn.model': run.model }),
      ...(typeof run?.depth === 'number' && { 'cairn.depth': run.depth }),
      'cairn.generation': run?.carried?.generation ?? 0,
    });
    const result = next(input);
    // A side branch: the workflow awaits `result` itself, untouched.
    result.then(
      (value) => {
        const r = value as Partial<AgentRunResult>;
        span?.setAttributes({
          ...(typeof r.reason === 'string' && { 'cairn.finish.reason': r.reason }),
          ...(typeof r.turns === 'number' && { 'cairn.turns': r.turns }),
          ...(typeof r.toolCalls === 'number' && { 'cairn.tool_calls': r.toolCalls }),
          ...(r.outcome?.status && { 'cairn.outcome': r.outcome.status === 'answered' ? 'answered' : r.outcome.code }),
          // The run's usage over its whole chain (carried across continue-as-new).
          ...(r.usage && {
            'cairn.tokens.input': r.usage.inputTokens,
            'cairn.tokens.output': r.usage.outputTokens,
            'cairn.cost_usd': r.usage.costUsd,
            'cairn.model_calls': r.usage.calls,
          }),
        });
        decision(span, 'finish', typeof r.reason === 'string' ? { 'cairn.finish.reason': r.reason } : {});
      },
      () => {},
    );
    return result;
  }
}

class CairnOutbound implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly execution: Execution) {}

  /** The tools offered to the previous model turn of this run (for `disable`). */
  #offered: readonly string[] | undefined;

  scheduleActivity(
    input: ActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
  ): Promise<unknown> {
    const span = trace.getActiveSpan(); // StartActivity:<type>, made by the OpenTelemetry interceptor around this one
    // The one line the Temporal UI shows for the activity (what the turn reacts to, a re-run after a back-off…).
    if (input.options.summary) span?.setAttribute('cairn.summary', input.options.summary);
    if (input.activityType === 'callModel') {
      const request = input.args[0] as Partial<ModelRequest> | undefined;
      const choice = request?.toolChoice;
      const tools = Array.isArray(request?.toolNames) ? request.toolNames : [];
      const final = choice === 'none' && input.options.summary?.endsWith('(final)') === true;
      span?.setAttributes({
        ...(typeof request?.model === 'string' && { 'cairn.model': request.model }),
        'cairn.planner.action': modelTurnAction(final, choice),
        'cairn.tool_choice': typeof choice === 'object' ? choice.tool : (choice ?? 'auto'),
        'cairn.tools': [...tools],
      });
      if (!final)
        for (const gone of this.#offered?.filter((name) => !tools.includes(name)) ?? [])
          decision(span, 'disable', { 'cairn.tool': gone });
      if (typeof choice === 'object') decision(span, 'repair', { 'cairn.tool': choice.tool });
      if (!final) this.#offered = tools;
    } else if (TOOL_ACTIVITY_TYPES.has(input.activityType)) {
      const call = input.args[0] as Partial<RunToolInput> | undefined;
      span?.setAttributes({
        'cairn.planner.action': 'run_tools' satisfies StepAction,
        ...(typeof call?.name === 'string' && { 'cairn.tool': call.name }),
        ...(typeof call?.toolCallId === 'string' && { 'cairn.tool_call_id': call.toolCallId }),
      });
    }
    return next(input);
  }

  startTimer(input: TimerInput, next: Next<WorkflowOutboundCallsInterceptor, 'startTimer'>): Promise<void> {
    const summary = input.options?.summary;
    // agentRun's only timers: a back-off, and a question's deadline (workflows/take-step.ts).
    const action: StepAction | undefined = !this.execution.agentRun
      ? undefined
      : summary?.startsWith('waiting for an answer')
        ? 'clarify'
        : 'back_off';
    const span = trace.getTracer(TRACER).startSpan(
      action ? `Timer:${action}` : 'Timer',
      {
        attributes: {
          'cairn.timer.duration_ms': input.durationMs,
          ...(summary && { 'cairn.timer.summary': summary }),
          ...(action && { 'cairn.planner.action': action }),
        },
      },
      context.active(),
    );
    const fired = next(input);
    // Ended beside the workflow's own await: fired, or cancelled (woken early by a cancel, an answer).
    fired.then(
      () => (span.setAttribute('cairn.timer.fired', true), span.end()),
      () => (span.setAttribute('cairn.timer.fired', false), span.end()),
    );
    return fired;
  }
}

export const interceptors = (): WorkflowInterceptors => {
  const execution: Execution = { agentRun: false };
  return { inbound: [new CairnInbound(execution)], outbound: [new CairnOutbound(execution)] };
};
