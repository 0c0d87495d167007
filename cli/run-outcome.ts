/**
 * What a run came to, as the CLI's exit codes say it (docs/cli.md, "Exit codes"): 0 answered, 1 a
 * run that failed, was terminated, timed out or ended without its answer, 2 a wrong command line,
 * 3 a run that waits on a person. Reads `AgentRunResult.outcome` when the run has one (runs
 * recorded before it: `reason === null` is an answer). Pure. Node-only.
 */
import type { RunState } from '../workflows/contract/index.js';
import { formatQuestion, formatReview } from './format.js';

/** Exit code: the run waits on a person (a question to answer, a tool call to review). */
export const EXIT_WAITING_ON_PERSON = 3;

/** How a completed run ended: answered, or ended without its answer (a cap, a loop, the model unavailable…). */
export type RunEnding =
  | { readonly answered: true }
  | { readonly answered: false; readonly code: string; readonly message: string };

interface ResultShape {
  readonly reason?: string | null;
  readonly outcome?: { readonly status?: string; readonly code?: unknown; readonly message?: unknown };
}

/** The ending of a run's result, read defensively (`outcome` is optional, and absent on older runs). */
export function endingOf(result: unknown): RunEnding {
  const { reason = null, outcome } = (typeof result === 'object' && result !== null ? result : {}) as ResultShape;
  if (outcome?.status === 'answered') return { answered: true };
  if (outcome?.status === 'ended')
    return {
      answered: false,
      code: typeof outcome.code === 'string' ? outcome.code : 'ended',
      message: typeof outcome.message === 'string' ? outcome.message : (reason ?? ''),
    };
  return reason === null ? { answered: true } : { answered: false, code: 'ended_early', message: reason };
}

/** The line that says a run ended without its answer. */
export function endingLine(ending: Extract<RunEnding, { answered: false }>): string {
  return `The run ended without its answer (${ending.code}): ${ending.message}`;
}

/** True when the run waits on a person: a pending question or a held tool call. */
export function waitsOnPerson(state: RunState): boolean {
  return state.phase !== 'done' && (state.clarification !== null || state.reviews.length > 0);
}

/** The question or the held calls, each with the exact command that answers it. */
export function pendingLines(workflowId: string, state: RunState): string[] {
  return [
    ...(state.clarification ? formatQuestion(workflowId, state.clarification) : []),
    ...state.reviews.flatMap((review) => formatReview(workflowId, review)),
  ];
}
