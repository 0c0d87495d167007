/**
 * How a run ends: with its answer — the stream's finish, then its push receivers, then its
 * handlers — or failed, when its model cannot be used, with the failure's code as its type. Either
 * way the run's state says how it ended (`answer`, `failure`), for `cairn show` and the UI.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  setCurrentDetails,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { runOutcome } from '../planner/index.js';
import type { LoopFinish } from '../planner/run-loop.js';
import type { AgentRunResult } from './contract/agent-run.js';
import type { RunState } from './contract/run-state.js';
import { ENDED_MEMO, ENDED_MEMO_PATCH, endedSummary } from './contract/ended-memo.js';
import { RUN_SUMMARY_MEMO, runSummary } from './contract/run-summary-memo.js';
import { runDetails } from './run-details.js';
import type { RunNarrator } from './run-narrator.js';
import type { RunStream } from './run-stream.js';
import { END_WAIT, type StatusPush } from './status-push.js';

export interface RunEndParts {
  readonly narrator: RunNarrator;
  readonly stream: RunStream;
  readonly push: StatusPush;
  /** The run's state as its readers see it (it reads `answer` and `failure` from here). */
  readonly snapshot: () => RunState;
  readonly model: string;
  readonly generation: number;
  /** The request that started the run, for its summary (run-summary-memo.ts). */
  readonly request: string;
}

export class RunEnd {
  /** The answer the run finished with; null until it has. */
  answer: string | null = null;
  /** Why the run failed, once it has. */
  failure: RunState['failure'];

  constructor(private readonly parts: RunEndParts) {}

  /** The run ends: with its answer, or failed when its model cannot be used. */
  async finish({ state, step }: LoopFinish): Promise<AgentRunResult> {
    const { narrator, stream, push, snapshot, model, generation } = this.parts;
    const { answer, reason } = step;
    const outcome = runOutcome(state, step);
    // A model that cannot be used fails the run (status Failed), with its code as the failure's type.
    const end = step.end?.fail === true ? step.end : undefined;
    if (end) this.failure = { type: end.code, message: end.message };
    else this.answer = answer;
    setCurrentDetails(runDetails(snapshot()));
    // How it ended, in the memo, so lists read it from visibility: one upsert per run. The patch is
    // asked here, where it acts once, not at the start: a run recorded before it replays without it.
    if (patched(ENDED_MEMO_PATCH))
      upsertMemo({
        [ENDED_MEMO]: endedSummary(snapshot()),
        [RUN_SUMMARY_MEMO]: runSummary(snapshot(), this.parts.request, { endedAt: Date.now() }),
      });
    // A failed run's stream ends with its failure, not a finish (readers get the workflow's failure).
    if (!end) {
      narrator.finished(answer, reason);
      // A reader following the stream gets the end before the run closes (bounded; none polling, no wait).
      await stream.linger(state.policy.readerLingerMs);
    }
    // Push receivers hear the end; the run closes once they took it (or END_WAIT passed: its state says it ended).
    push.publish(snapshot);
    if (!push.idle()) await condition(() => push.idle(), END_WAIT);
    stream.close();
    await condition(allHandlersFinished);
    const usage = state.usage && { usage: state.usage };
    if (end)
      throw ApplicationFailure.create({
        type: end.code,
        message: end.message,
        nonRetryable: true,
        details: [{ code: end.code, model, ...usage }],
      });
    return {
      answer,
      reason,
      outcome,
      turns: state.turn,
      toolCalls: state.toolCallsUsed,
      generation,
      errors: state.lastErrors,
      ...usage,
      ...(state.workspace !== undefined && { workspace: state.workspace }),
      // Its events, for readers with no worker to replay the run; a child's would sit in its parent's history too.
      ...(workflowInfo().parent === undefined && { stream: stream.final() }),
    };
  }

  /** The run fails (its model cannot be used): its state says why too. Throws `err` on. */
  failed(err: unknown): never {
    if (err instanceof ApplicationFailure) {
      this.failure = { type: err.type ?? 'ApplicationFailure', message: err.message };
      setCurrentDetails(runDetails(this.parts.snapshot()));
    }
    throw err;
  }
}
