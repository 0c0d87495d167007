/**
 * What a message a person sends while the run works does, and when it reaches the model: the
 * agent's `onMessage` policy decides whether it is queued, cuts the model call in flight short,
 * or is refused; queued messages are delivered as user messages before the next model turn, and
 * a run about to finish on the model's own answer takes one more turn for them. Pure,
 * deterministic; the workflow executes (workflows/user-messages.ts).
 */
import type { AgentPolicy } from './policy.js';
import type { Plan, PlannerState, PlanStep } from './plan.js';
import { callModel } from './plan-common.js';

/** A message a person sent the run, as the run keeps it until delivered. */
export interface UserMessage {
  readonly id: string;
  readonly text: string;
}

/** What the run is doing when a message arrives: a model call, tools (or a back-off), or nothing a message could cut short. */
export type Working = 'model' | 'tools' | null;

export type MessageDecision = 'queue' | 'interrupt' | 'refuse';

export function messageDecision(onMessage: AgentPolicy['onMessage'], working: Working): MessageDecision {
  if (working === null) return 'queue';
  if (onMessage === 'reject') return 'refuse';
  return onMessage === 'interrupt' && working === 'model' ? 'interrupt' : 'queue';
}

/** What the step `working` names: a running tool is never cut short, so tools and back-offs only queue. */
const WORKING_ON: Readonly<Record<PlanStep['type'], Working>> = {
  call_model: 'model',
  execute_tools: 'tools',
  back_off: 'tools',
  reconcile: null,
  await_clarification: null,
  await_review: null,
  await_budget: null,
  finish: null,
};

export function workingOn(step: PlanStep): Working {
  return WORKING_ON[step.type];
}

/**
 * The plan that delivers `messages` before `step`, or null when they wait: before a model call
 * they join its input; a finish on the model's own answer becomes another model turn. A forced
 * finish (a cap, a cancel) does not wait for them.
 */
export function deliverMessages(state: PlannerState, step: PlanStep, messages: readonly UserMessage[]): Plan | null {
  if (messages.length === 0) return null;
  const said = messages.map((m) => m.text);
  if (step.type === 'call_model') return { state, step, record: [], notes: [], said };
  if (step.type === 'finish' && step.reason === null && state.finalizing === null)
    return { ...callModel(state, 'auto'), said };
  return null;
}
