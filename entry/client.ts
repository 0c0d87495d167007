/**
 * `cairn-agents/client`: start agent runs and talk to them from your backend, a script or a test:
 * start (or start and wait until the run needs a person), read its state (with a deadline, without
 * a worker too: `state({ deadlineMs })`), answer its question,
 * decide its reviews, pause, resume, cancel, get its result, and watch its steps;
 * `redisLiveSource` and `mergeLive` read the live deltas a worker's `redisTransport` writes to
 * Redis (the optional `redis` package).
 *
 * Who imports it: Node code that talks to runs (it loads @temporalio/client, never the worker).
 * Not workflow code.
 */
import type { CairnClient as CairnClientInstance } from '../client/cairn-client.js';
import { connectCairnClient as connectWith, type ConnectCairnClientOptions } from '../client/connect.js';
import { dataConverterFromEnvironment } from '../runtime/payload-codec.js';

export {
  CairnClient,
  TenantRuns,
  UnknownRunError,
  INTERACTIVE_PRIORITY,
  BACKGROUND_PRIORITY,
  type CairnClientOptions,
  type StartRunOptions,
} from '../client/cairn-client.js';
export {
  AgentRunHandle,
  DEFAULT_READ_DEADLINE_MS,
  type ReadOptions,
  type StreamPage,
} from '../client/agent-run-handle.js';
export { staleRunState, type RunRecord } from '../client/stale-state.js';
export { NotPendingError } from '../client/not-pending-error.js';
export { TenantRunsLimitError, type MaxRunsPerTenant } from '../client/tenant-runs-limit.js';
export { refusalCodeOf, type HumanInputRefusal } from '../shared/human-input/refusal.js';
export { pollRun, type PollOptions } from '../client/poll-run.js';
export { runEvents, type EventOptions, type RunEventItem } from '../client/run-events.js';
export {
  redisLiveSource,
  type LiveSource,
  type RedisLiveEvent,
  type RedisLiveSourceOptions,
  type RedisReaderClient,
  type RedisSubscribeOptions,
} from '../client/redis-live-source.js';
export { mergeLive } from '../client/merge-live.js';
export type { LiveEvent, ToolArgsDelta } from '../shared/live/model-delta.js';
export type {
  RunEvent,
  RunEventType,
  AgentRunInput,
  AgentRunResult,
  ReviewDecisionInput,
  ReviewInput,
  RunState,
  StepLogEntry,
  ChildLink,
} from '../workflows/contract/index.js';
export type { ErrorSummary, PendingClarification, PendingReview, Phase } from '../planner/index.js';
export type { TranscriptMessage } from '../shared/model/transcript.js';
export type { JsonValue } from '../shared/json/json.js';
export type { ConnectCairnClientOptions } from '../client/connect.js';
export {
  AesGcmPayloadCodec,
  CODEC_KEYS_ENV,
  codecFromEnvironment,
  dataConverterFromEnvironment,
  PayloadDecryptionError,
  type CodecKey,
} from '../runtime/payload-codec.js';

/**
 * A CairnClient on the server the environment names (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TEMPORAL_TLS*, temporal.toml profiles), encrypting payloads with the keys
 * CAIRN_CODEC_KEYS names when it is set (docs/encryption.md). `close()` closes the connection.
 */
export function connectCairnClient(options: ConnectCairnClientOptions = {}): Promise<CairnClientInstance> {
  const dataConverter = options.dataConverter ?? dataConverterFromEnvironment(options.env ?? process.env);
  return connectWith({ ...options, ...(dataConverter && { dataConverter }) });
}
