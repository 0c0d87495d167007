/**
 * `cairn-agents/workflow`: the agentRun workflow and the messages a run answers. Workflow-safe:
 * your workflows file (the bundle's entry) imports `defineAgentRun` from here; clients import the
 * message definitions and types (they are plain Temporal Queries, Updates and Signals).
 *
 * Who imports it: your workflows file (`export const agentRun = defineAgentRun(agents)`), and
 * any client that talks to a run without `cairn-agents/client`.
 */
export { defineAgentRun } from '../workflows/agent-run.js';
export {
  answerClarificationSignal,
  answerClarificationUpdate,
  cancelSignal,
  deletePushTargetUpdate,
  extendBudgetUpdate,
  pushTargetsQuery,
  setPushTargetUpdate,
  type PushTarget,
  pauseSignal,
  resumeSignal,
  reviewToolCallUpdate,
  stateQuery,
  transcriptQuery,
  untilIdleUpdate,
  upgradeSignal,
  type RunUpgradeRequest,
  type AgentRunInput,
  type AgentRunResult,
  type AgentRunWorkflow,
  type CarriedRun,
  type BudgetExtensionInput,
  type ClarificationAnswer,
  type RunBudget,
  type ReviewDecisionInput,
  type ReviewInput,
  type RunState,
  type StepLogEntry,
} from '../workflows/contract/index.js';
export {
  CairnAgent,
  CairnAgentVersion,
  CairnPhase,
  CairnTenant,
  CairnUser,
  CAIRN_OPTIONAL_SEARCH_ATTRIBUTES,
  CAIRN_SEARCH_ATTRIBUTES,
} from '../workflows/contract/search-attributes.js';
export type {
  BudgetDecision,
  BudgetRequest,
  ErrorSummary,
  PendingClarification,
  PendingReview,
  Phase,
} from '../planner/index.js';
export { RUN_END_CODES, isRunEndCode, type RunEndCode, type RunOutcome } from '../shared/agent/run-outcome.js';
export type { TranscriptMessage, TranscriptSlice } from '../shared/model/transcript.js';
export { agentsOf } from '../shared/agent/define-agent.js';
