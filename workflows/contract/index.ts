/**
 * The run's contract: everything that crosses between an agentRun workflow and whoever talks to
 * it — its input and result, its Updates, Signals and Queries (named by kind, as in Temporal's
 * samples), its state, its live stream and events, and the review-decision family. Defined once
 * here; the rest of workflows/ installs the handlers, client/, cli/ and tests import these
 * definitions. A leaf of workflows/: it imports shared/, planner/ and `@temporalio/workflow`'s
 * define functions, never another file of workflows/ (test/layering.contract.test.ts).
 * Workflow-safe. The Temporal names and wire shapes are what recorded histories and running
 * clients depend on: change them only with a new name.
 */
export type { AgentRunInput, AgentRunResult, AgentRunWorkflow, CarriedMessages, CarriedRun } from './agent-run.js';
export {
  childStatusSignal,
  stateQuery,
  transcriptQuery,
  untilIdleUpdate,
  type ChildLink,
  type ChildStatus,
  type RunBudget,
  type RunState,
  type StepLogEntry,
} from './run-state.js';
export {
  answerClarificationSignal,
  answerClarificationUpdate,
  cancelSignal,
  extendBudgetUpdate,
  pauseSignal,
  resumeSignal,
  reviewToolCallSignal,
  reviewToolCallUpdate,
  sendMessageUpdate,
  type BudgetExtensionInput,
  type ClarificationAnswer,
  type ReviewInput,
  type SentMessage,
  type UserMessageInput,
} from './human-messages.js';
export { upgradeSignal, type RunUpgradeRequest } from './run-upgrade.js';
export {
  streamOffsetQuery,
  streamPollUpdate,
  streamPublishSignal,
  streamPublishUpdate,
  streamReadQuery,
  type FinalStream,
  type StreamPollInput,
  type StreamPollResult,
  type StreamState,
  type StreamWireItem,
} from './stream-protocol.js';
export {
  deletePushTargetUpdate,
  MAX_PUSH_TARGETS,
  pushTargetProblem,
  pushTargetsQuery,
  setPushTargetUpdate,
  type CarriedPush,
  type PushTarget,
} from './status-push.js';
export type { HumanKind, RunEvent, RunEventBase, RunEventType } from './run-event.js';
export {
  REVIEW_DECISIONS,
  allowedDecisions,
  isReviewDecisionType,
  type DecidedReview,
  type ReviewDecision,
  type ReviewDecisionInput,
  type ReviewDecisionOf,
  type ReviewDecisionType,
} from '../../shared/human-input/review-decision.js';
export {
  FAILING_END_CODES,
  RUN_END_CODES,
  isRunEndCode,
  type RunEndCode,
  type RunOutcome,
} from '../../shared/agent/run-outcome.js';
export type { RunUsage, UsageTotals } from '../../shared/model/model-usage.js';
export type { BudgetDecision, BudgetRequest, StepAction } from '../../planner/index.js';
export {
  CAIRN_OPTIONAL_SEARCH_ATTRIBUTES,
  CAIRN_SEARCH_ATTRIBUTES,
  CairnAgentVersion,
  CairnAgent,
  CairnPhase,
  CairnTenant,
  CairnUser,
  TENANT_ID,
  TENANT_MEMO,
  AGENT_MEMO,
  USER_MEMO,
  ownerMemo,
  ownerSearchAttributes,
  searchPhase,
} from './search-attributes.js';
export { WAITING_MEMO, type WaitingSummary } from './waiting-memo.js';
export {
  ENDED_ANSWER_CHARS,
  ENDED_MEMO,
  ENDED_MEMO_PATCH,
  endedSummary,
  endedSummaryOf,
  type EndedSummary,
} from './ended-memo.js';
