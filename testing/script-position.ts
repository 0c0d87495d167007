/**
 * Where a run stands in its script, read from its transcript rather than from a process's memory:
 * every step that the run took as a reply (text a person sees, or tool calls) left one assistant
 * message, and nothing else does (failures, invalid or empty replies leave none). So any worker,
 * fresh or not, finds the next step from the messages a model call receives. Worker-side and
 * tests; deterministic.
 */
import type { ModelOutcome } from '../shared/model/model-response.js';
import { visibleText } from '../shared/model/think-block.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { Script, ScriptStep } from './script-steps.js';

/** How many replies of the model the run holds: its assistant messages. */
export function repliesIn(messages: readonly TranscriptMessage[]): number {
  let replies = 0;
  for (const message of messages) if (message.role === 'assistant') replies++;
  return replies;
}

/** Whether an outcome is one the run records as an assistant message (planner/plan-model-outcome.ts). */
export function isReply(outcome: ModelOutcome): boolean {
  if (outcome.status !== 'ok' || !outcome.response || outcome.response.interrupted) return false;
  return outcome.response.toolCalls.length > 0 || visibleText(outcome.response.text) !== '';
}

/**
 * Whether a step leaves an assistant message once answered. A reactive step is taken to reply: what
 * it produces depends on the request, and a step that reacts is almost always a reply.
 */
function replies(step: ScriptStep): boolean {
  if (step.kind === 'react') return true;
  if (step.kind !== 'respond') return false;
  return (step.calls?.length ?? 0) > 0 || visibleText(step.text ?? '') !== '';
}

/**
 * The step that answers a run holding `replyCount` replies: the one after its `replyCount`-th
 * replying step (a failure step after it was served already, or not: it is served again, as a
 * provider's failure can repeat). The script's length when it has fewer replying steps: the run has
 * asked for one step too many.
 */
export function stepAfterReplies(script: Script, replyCount: number): number {
  if (replyCount <= 0) return 0;
  let seen = 0;
  for (let index = 0; index < script.length; index++) {
    if (replies(script[index]!) && ++seen === replyCount) return index + 1;
  }
  return script.length;
}
