/**
 * `cairn-agents/client`: start agent runs and talk to them from your backend, a script or a test:
 * start (or start and wait until the run needs a person), read its state, answer its question,
 * decide its reviews, pause, resume, cancel, get its result, and watch its steps.
 *
 * Who imports it: Node code that talks to runs (it loads @temporalio/client, never the worker).
 * Not workflow code.
 */
export { CairnClient, type CairnClientOptions, type StartRunOptions } from '../client/cairn-client.js';
export { AgentRunHandle } from '../client/agent-run-handle.js';
export { connectCairnClient, type ConnectCairnClientOptions } from '../client/connect.js';
export { NotPendingError } from '../client/not-pending-error.js';
export { pollRun, type PollOptions } from '../client/poll-run.js';
export { runEvents, type EventOptions, type RunEventItem } from '../client/run-events.js';
export type { RunEvent, RunEventType } from '../workflows/run-events.js';
export type {
  AgentRunInput,
  AgentRunResult,
  ReviewDecisionInput,
  ReviewInput,
  RunState,
  StepLogEntry,
  ChildLink,
} from '../workflows/messages.js';
export type { ErrorSummary, PendingClarification, PendingReview, Phase } from '../planner/index.js';
export type { TranscriptMessage } from '../shared/transcript.js';
export type { JsonValue } from '../shared/json.js';
