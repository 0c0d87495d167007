/**
 * `cairn-agents`: what tools and agents are made of. Workflow-safe: your agents module imports it,
 * and the workflow bundle imports your agents module, so nothing here touches Node, the network
 * or the worker. Deterministic; a tool's `execute` runs only in the tool activity on the worker.
 *
 * Who imports it: your tool and agent definitions (and anything else).
 */
export {
  defineTool,
  needsApproval,
  type AnyTool,
  type ApprovalRule,
  type SideEffects,
  type Tool,
  type ToolConfig,
  type ToolContext,
  type ToolRetryPolicy,
  type ToolSpec,
  type ToolTimeouts,
} from '../shared/tools/define-tool.js';
export type { ReconcileInput, ReconcileOutcome } from '../shared/tools/reconcile.js';
export { defineAgent, isAgent, agentsOf, reachableAgents, type Agent, type AgentConfig } from '../shared/agent/define-agent.js';
export { mcpServer, type McpServer, type McpServerConfig, type McpToolOverrides, type McpListing, type McpToolInfo } from '../shared/mcp/mcp-server.js';
export { mcpToolOf, mcpToolName, type McpToolRef } from '../shared/mcp/mcp-tools.js';
export { agentTool, agentOf, type AgentTask, type AgentToolOptions } from '../shared/tools/agent-tool.js';
export { a2aAgent, a2aAgentOf, type A2AAgentConfig, type A2ACall } from '../shared/tools/a2a-agent.js';
export { fromAiSdkTool, type AiSdkToolCallOptions, type AiSdkToolExtras, type AiSdkToolLike } from '../shared/tools/from-ai-sdk-tool.js';
export { ToolFailure, type ToolFailureHint, type ToolFailureOptions } from '../shared/failures/tool-failure.js';
export { Result, Validator, validator, RESERVED_VALIDATOR_NAMES } from '../shared/guards/validator.js';
export type { SemanticCheck, SemanticVerdict } from '../shared/guards/semantic-check.js';
export { DefinitionError, DefinitionErrorCode, ReservedValidatorNameError } from '../shared/failures/definition-error.js';
export {
  FAILURES,
  FailureKind,
  RetryReason,
  TOOL_ERROR_CODES,
  isToolErrorCode,
  type ToolErrorCode,
} from '../shared/failures/failure-taxonomy.js';
export { isToolError, type ToolError } from '../shared/failures/tool-error.js';
export type { FieldIssue, RetryHint } from '../shared/failures/retry-hint.js';
export type { ToolFailureResult, ToolResult, ToolSuccess, ToolTelemetry, ToolValidationFailure } from '../shared/tools/tool-result.js';
export type { AgentPolicy, BackoffPolicy, BudgetPolicy, ContextPolicy, HistoryPolicy, PolicyOverrides } from '../shared/agent/agent-policy.js';
export { FAILING_END_CODES, RUN_END_CODES, isRunEndCode, type RunEndCode, type RunOutcome } from '../shared/agent/run-outcome.js';
export type { CallUsage, ModelPrice, RunUsage, UsageTotals } from '../shared/model/model-usage.js';
export type { ReviewConfig } from '../shared/tools/review-config.js';
export { REVIEW_DECISIONS, type ReviewDecisionType } from '../shared/tools/review-decision.js';
export type { JsonObject, JsonPrimitive, JsonValue } from '../shared/json/json.js';
export { readResult } from '../shared/tools/read-result.js';
export { shadowCounts, type GuardMode, type GuardModes, type ShadowCount } from '../shared/guards/shadow-guard.js';
export type { ShadowViolation } from '../shared/guards/shadow-violation.js';
export type { PayloadSlice, PayloadStore, StoredPayloadInfo } from '../shared/tools/payload-store.js';
export { checkModelOutcome, DEFAULT_MODEL_OUTCOME_LIMITS, type ModelOutcomeLimits } from '../shared/model/model-outcome-check.js';
export { jsonSize, measureJson, type JsonMeasure } from '../shared/json/json-measure.js';
export {
  DEFAULT_MAX_RESULT_BYTES,
  HARD_MAX_RESULT_BYTES,
  MAX_ARGUMENT_BYTES,
  MAX_ARGUMENT_DEPTH,
  MAX_MODEL_REPLY_BYTES,
  MAX_TOOL_CALLS_PER_REPLY,
} from '../shared/size-limits.js';
