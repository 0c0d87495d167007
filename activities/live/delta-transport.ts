/**
 * How a model call's live deltas leave the worker: one small interface. Cairn's transport
 * (durable-transport.ts) publishes batches to the run's own stream with its publish Update; a
 * broker-backed one that writes no history can implement the same interface. Deltas are a
 * preview of the turn; a transport that fails drops them and never fails the model call. Worker
 * side only.
 */
import { batchDeltas, turnOfCall, type LiveEvent, type ModelDelta } from '../../shared/live/model-delta.js';

/** The model call deltas belong to. */
export interface LiveCall {
  readonly workflowId: string;
  readonly runId: string;
  /** The activity id (`model:3:1`): names the turn's message for readers. */
  readonly call: string;
  /** The activity attempt, from 1: a later one starts with a reset. */
  readonly attempt: number;
}

export interface DeltaTransport {
  /** `durable` or the broker's name, for docs and benchmarks. */
  readonly name: string;
  open(call: LiveCall): LivePublisher;
  /** Lets go of what the transport holds (a broker connection); the worker calls it when it stops. */
  close?(): Promise<void>;
}

export interface LivePublisher {
  /** Takes one delta; never throws and never waits. */
  push(delta: ModelDelta): void;
  /** Sends what is left and resolves once it is sent or given up on; never rejects. */
  close(): Promise<void>;
}

/**
 * Calls `send` with what was pushed, at most one send at a time: the first delta at once, later
 * ones gathered for `intervalMs` or until `maxChars` are waiting. Both transports batch this way.
 */
export function batcher(
  send: (deltas: ModelDelta[]) => Promise<void>,
  intervalMs: number,
  maxChars: number,
): LivePublisher {
  let pending: ModelDelta[] = [];
  let chars = 0;
  let timer: NodeJS.Timeout | undefined;
  let chain = Promise.resolve();
  let lastSent = -Infinity;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return chain;
    const deltas = pending;
    pending = [];
    chars = 0;
    lastSent = Date.now();
    chain = chain.then(() => send(deltas)).catch(() => {});
    return chain;
  };
  return {
    push(delta) {
      pending.push(delta);
      chars += delta.kind === 'text' ? delta.text.length : delta.args.length;
      const wait = lastSent + intervalMs - Date.now();
      if (chars >= maxChars || wait <= 0) void flush();
      else timer ??= setTimeout(flush, wait);
    },
    close: () => flush(),
  };
}

/**
 * The live events one call's sends become, the same for every transport: each send's deltas in
 * batches of at most `maxChars` (`seq` from 1 over the attempt), and a retried attempt's first
 * send led by a `model_reset`.
 */
export function liveEventsOf(call: LiveCall, maxChars: number): (deltas: readonly ModelDelta[]) => LiveEvent[] {
  const turn = turnOfCall(call.call);
  let sends = 0;
  let batches = 0;
  return (deltas) => {
    const base = { at: Date.now(), turn, call: call.call, attempt: call.attempt };
    const events: LiveEvent[] = [];
    if (call.attempt > 1 && sends++ === 0) events.push({ ...base, type: 'model_reset' });
    for (const { text, toolArgs } of batchDeltas(deltas, maxChars))
      events.push({
        ...base,
        type: 'model_delta',
        seq: ++batches,
        ...(text && { text }),
        ...(toolArgs.length > 0 && { toolArgs }),
      });
    return events;
  };
}
