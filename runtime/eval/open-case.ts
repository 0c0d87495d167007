/**
 * A case from a run still open (the runs a deploy gate would move to a new build): its history so
 * far is the recording, and it ends where the run waits (for a person, mostly). Both lanes replay
 * up to there and stop at the first ask the recording does not answer, as for any case; here the
 * baseline's stop is the recording's own wait, not a new ask: the decisions up to it are compared,
 * and a candidate that stops at the same wait asks nobody new. Node-only.
 */
import type { Client } from '@temporalio/client';
import type { Agent } from '../../shared/agent/define-agent.js';
import { traceOf, type DecisionTrace } from '../../shared/eval/decision-trace.js';
import { type EvalEvent, type Recording, RecordingError, recordingOf } from '../../shared/eval/recording.js';
import { serverHistories } from '../replay.js';
import { caseProblem, type EvalCase } from './eval-cases.js';
import type { LaneReport, NewAsk } from './eval-results.js';
import { historyEvents, type PayloadDecoding } from './history-events.js';

/** The close status of an open run's recording, and the outcome of a trace that stops where a person is asked. */
export const OPEN_STATUS = 'open';
export const WAITING = 'waits for a person';

/** A lane's failure line for a person it would have asked. */
export function askFailure(ask: NewAsk): string {
  return `would have asked a person (${ask.kind}): ${ask.text}`;
}

/** A lane's failure line for an outcome other than the recording's (an eval without scorers). */
export function outcomeFailure(outcome: string, recorded: string): string {
  return `ended ${outcome}, the recording ${recorded}`;
}

/** The recording in an open run's events (not closed yet); a run that closed meanwhile is read as any. */
export function openRecording(events: readonly EvalEvent[]): Recording {
  if (events.at(-1)?.type === 'closed') return recordingOf(events);
  const started = events[0];
  // Closed at its start: the recording, and so every lane run's id, stays the same until the run moves on.
  const time = started?.type === 'started' ? started.time : 0;
  return { ...recordingOf([...events, { type: 'closed', status: 'terminated', time }]), end: { status: OPEN_STATUS } };
}

/** The open runs `query` finds (at most `limit`), as cases of `agent`. */
export async function loadOpenCases(
  client: Client,
  options: {
    readonly query: string;
    readonly limit?: number;
    readonly agent: Agent;
    readonly decoding?: PayloadDecoding;
  },
): Promise<EvalCase[]> {
  const cases: EvalCase[] = [];
  for await (const run of serverHistories(client, {
    query: options.query,
    ...(options.limit !== undefined && { limit: options.limit }),
  })) {
    const source = `open ${run.source ?? run.workflowId}`;
    try {
      const recording = openRecording(await historyEvents(run.history, options.decoding));
      const open = recording.end.status === OPEN_STATUS;
      const error = caseProblem(recording, options.agent, { open });
      cases.push({
        id: run.workflowId,
        source,
        workflowId: run.workflowId,
        recording,
        ...(open && { open: true }),
        ...(error && { error }),
      });
    } catch (error) {
      if (!(error instanceof RecordingError)) throw error;
      cases.push({ id: run.workflowId, source, error: { code: error.code, message: error.message } });
    }
  }
  return cases;
}

const key = (ask: NewAsk) => `${ask.kind}\0${ask.text}`;

/** `asks` without those in `waits` (each wait takes one ask away). */
export function asksBeyond(asks: readonly NewAsk[], waits: readonly NewAsk[]): NewAsk[] {
  const left = new Map<string, number>();
  for (const wait of waits) left.set(key(wait), (left.get(key(wait)) ?? 0) + 1);
  return asks.filter((ask) => {
    const n = left.get(key(ask)) ?? 0;
    if (n === 0) return true;
    left.set(key(ask), n - 1);
    return false;
  });
}

/**
 * An open case's lanes, read against the recording's wait: the asks the baseline stopped at (it
 * reproduces the recording) are the wait. A lane that stops at an ask waits for a person (its
 * outcome); only asks beyond the wait are new, and fail it.
 */
export function settleOpenCase(
  recording: Recording,
  lanes: { readonly baseline: LaneReport; readonly candidate: LaneReport },
  /** The eval has scorers: an outcome other than the recording's is not a failure by itself. */
  scored: boolean,
): { recorded: DecisionTrace; baseline: LaneReport; candidate: LaneReport } {
  const waits = lanes.baseline.newAsks;
  const count = (kind: NewAsk['kind']) => waits.filter((ask) => ask.kind === kind).length;
  const raw = traceOf(recording, {
    clarifications: count('clarification'),
    reviews: count('review'),
    budgets: count('budget'),
  });
  const recorded: DecisionTrace = { ...raw, outcome: WAITING, answer: null };
  const settle = (lane: LaneReport): LaneReport => {
    const beyond = asksBeyond(lane.newAsks, waits);
    const expected = new Set(asksBeyond(lane.newAsks, beyond).map(askFailure));
    // A lane that stopped at an ask was cancelled there by the evaluation, and took a final turn
    // (with no tools) the run waiting for its person never takes: not counted. Turns of its own
    // before the ask show in its calls.
    const trace =
      lane.newAsks.length > 0
        ? { ...lane.trace, outcome: WAITING, answer: null, turns: Math.min(lane.trace.turns, raw.turns) }
        : lane.trace;
    const failures = lane.failures.filter(
      (line) => !expected.has(line) && line !== outcomeFailure(lane.trace.outcome, raw.outcome),
    );
    if (!scored && trace.outcome !== WAITING) failures.push(outcomeFailure(trace.outcome, WAITING));
    return { ...lane, trace, newAsks: beyond, failures, pass: failures.length === 0 };
  };
  return { recorded, baseline: settle(lanes.baseline), candidate: settle(lanes.candidate) };
}
