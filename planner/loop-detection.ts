/**
 * Loop detection across turns: the same call (same tool, same arguments) failing the same way
 * `loopThreshold` times is a loop. The call is blocked — refused as `loop_detected` from then on —
 * and the run escalates (a question for the human, or a final turn). A refusal of a call already
 * known to fail continues its streak; a success ends it. Workflow-safe, deterministic.
 */
import { FAILURES } from '../shared/failures/failure-taxonomy.js';
import { failureCode, type ToolResult } from '../shared/tools/tool-result.js';
import type { Batch, PlannerState } from './plan.js';

export interface Loops {
  readonly streaks: PlannerState['failureStreaks'];
  /** Calls to block from now on, by call key, with the reason given when one is refused. */
  readonly blocked: Record<string, string>;
  /** The first looping call, by its index in the batch. */
  readonly escalation?: { readonly index: number; readonly text: string };
}

export function detectLoops(state: PlannerState, batch: Batch, record: readonly ToolResult[]): Loops {
  const streaks = { ...state.failureStreaks };
  const blocked: Record<string, string> = {};
  let escalation: Loops['escalation'];
  for (const [index, result] of record.entries()) {
    const { key, call } = batch.entries[index]!;
    const code = failureCode(result);
    if (code === undefined) {
      delete streaks[key];
      continue;
    }
    const prior = streaks[key];
    const refused = FAILURES[code].reason === 'budget_exceeded';
    const count = prior && (prior.code === code || refused) ? prior.count + 1 : 1;
    const streak = { code: prior && refused ? prior.code : code, count };
    streaks[key] = streak;
    if (count >= state.policy.loopThreshold) {
      blocked[key] = `${call.name} failed the same way (${streak.code}) ${count} times with these arguments.`;
      escalation ??= { index, text: `${call.name} keeps failing with ${streak.code}` };
    }
  }
  return { streaks, blocked, ...(escalation && { escalation }) };
}
