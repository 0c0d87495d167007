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
export { defineAgent, agentsOf, type Agent, type AgentConfig } from '../shared/agent/define-agent.js';
export { agentVersion } from '../shared/agent/agent-version.js';
export type { AgentVersioning } from '../shared/agent/versioning.js';
export {
  workspaceTools,
  type RunCommandArgs,
  type WorkspaceToolsOptions,
} from '../shared/workspace/workspace-tools.js';
export {
  DEFAULT_WORKSPACE_LIMITS,
  type CheckedWorkspaceConfig,
  type WorkspaceConfig,
  type WorkspaceLimits,
  type WorkspaceSource,
} from '../shared/workspace/workspace-config.js';
export type {
  CommandResult,
  ReadFileResult,
  Workspace,
  WorkspaceCommand,
  WorkspaceEntry,
} from '../shared/workspace/workspace.js';
export {
  mcpServer,
  type McpServer,
  type McpServerConfig,
  type McpToolOverrides,
  type McpListing,
  type McpToolInfo,
} from '../shared/mcp/mcp-server.js';
export { agentTool, type AgentTask, type AgentToolOptions } from '../shared/tools/agent-tool.js';
export {
  a2aAgent,
  type A2AAgentConfig,
  type A2ACall,
  type A2ACardTrust,
  type A2APublicJwk,
} from '../shared/tools/a2a-agent.js';
export {
  fromAiSdkTool,
  type AiSdkToolCallOptions,
  type AiSdkToolExtras,
  type AiSdkToolLike,
} from '../shared/tools/from-ai-sdk-tool.js';
export { ToolFailure, type ToolFailureHint, type ToolFailureOptions } from '../shared/failures/tool-failure.js';
export { Result, Validator, validator } from '../shared/guards/validator.js';
export type { SemanticCheck, SemanticVerdict } from '../shared/guards/semantic-check.js';
export {
  DefinitionError,
  DefinitionErrorCode,
  ReservedValidatorNameError,
} from '../shared/failures/definition-error.js';
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
export type {
  ToolFailureResult,
  ToolResult,
  ToolSuccess,
  ToolTelemetry,
  ToolValidationFailure,
} from '../shared/tools/tool-result.js';
export type {
  AgentPolicy,
  BackoffPolicy,
  BudgetPolicy,
  ContextPolicy,
  HistoryPolicy,
  PolicyOverrides,
} from '../shared/agent/agent-policy.js';
export {
  FAILING_END_CODES,
  RUN_END_CODES,
  isRunEndCode,
  type RunEndCode,
  type RunOutcome,
} from '../shared/agent/run-outcome.js';
export type { CallUsage, ModelPrice, RunUsage, UsageTotals } from '../shared/model/model-usage.js';
export type { ReviewConfig } from '../shared/tools/review-config.js';
export { REVIEW_DECISIONS, type ReviewDecisionType } from '../shared/human-input/review-decision.js';
export type { JsonObject, JsonPrimitive, JsonValue } from '../shared/json/json.js';
export { readResult } from '../shared/tools/read-result.js';
export { shadowCounts, type GuardMode, type GuardModes, type ShadowCount } from '../shared/guards/shadow-guard.js';
export type { ShadowViolation } from '../shared/guards/shadow-violation.js';
export type { PayloadSlice, PayloadStore, StoredPayloadInfo } from '../shared/tools/payload-store.js';
export type { RunStore } from '../shared/storage/run-store.js';
