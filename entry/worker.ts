/**
 * `cairn-agents/worker`: run your agents. `createCairnWorker` (or `runCairnWorker`, which also
 * connects and runs until stopped) takes your agents, your tools' deps, how models resolve and
 * your workflows file or bundle; `defineConfig` types the `cairn.config.ts` the CLI reads.
 * `postgresRunStore`, `redisRunStore` and `fileRunStore` are the run stores a fleet's workers share
 * (transcripts without Queries, oversize results; docs/cluster.md). `redisTransport` streams model turns' live deltas through Redis without writing history
 * (`modelActivity.streaming`; needs the optional `redis` package).
 *
 * Who imports it: your worker process and your cairn.config.ts. Node-only; never workflow code
 * (it loads @temporalio/worker and the model providers).
 */
export { createCairnWorker, type CairnWorkerOptions, type WorkerTuning } from '../runtime/worker.js';
export type { WorkerVersioning } from '../runtime/worker-versioning.js';
export {
  redisFlowControl,
  type Admission,
  type FlowControl,
  type FlowControlOptions,
  type ProviderLimit,
} from '../activities/model/flow-control.js';
export {
  redisTenantBudgets,
  type TenantBudgets,
  type TenantBudgetOptions,
  type TenantBudget,
  type WindowLimit,
  type SpentWindow,
} from '../activities/model/tenant-budgets.js';
export { FilePayloadStore, type FilePayloadStoreOptions } from '../activities/file-payload-store.js';
export {
  postgresRunStore,
  type PostgresRunStore,
  type PostgresRunStoreOptions,
} from '../activities/storage/postgres-run-store.js';
export { redisRunStore, type RedisRunStoreOptions } from '../activities/storage/redis-run-store.js';
export { fileRunStore, type FileRunStore, type FileRunStoreOptions } from '../activities/storage/file-run-store.js';
export { runStoreFromEnvironment, RUN_STORE_ENV } from '../runtime/run-store-from-environment.js';
export type { ToolActivityOptions } from '../activities/tool-activity.js';
export type { WorkspaceRuntimeOptions } from '../activities/workspace/workspace-runtime.js';
export { bubblewrapDriver } from '../activities/workspace/bubblewrap-driver.js';
export type { SandboxDriver, SandboxRunInput } from '../activities/workspace/sandbox-driver.js';
export type { DeltaTransport, LiveCall, LivePublisher } from '../activities/live/delta-transport.js';
export {
  redisTransport,
  type RedisTransport,
  type RedisTransportOptions,
  type RedisWriteBatch,
  type RedisWriter,
} from '../activities/live/redis-transport.js';
export type { LiveEvent, ModelDelta, ToolArgsDelta } from '../shared/live/model-delta.js';
export { runCairnWorker, type RunCairnWorkerOptions } from '../runtime/run-worker.js';
export { tracingFromEnvironment, tracingWorkflowModules, type CairnTracingOptions } from '../runtime/tracing.js';
export {
  AesGcmPayloadCodec,
  CODEC_KEYS_ENV,
  codecFromEnvironment,
  dataConverterFromEnvironment,
  generateCodecKey,
  parseCodecKeys,
  PayloadDecryptionError,
  type CodecKey,
} from '../runtime/payload-codec.js';
export { startCodecServer, type CodecServer, type CodecServerOptions } from '../runtime/codec-server.js';
export { bundleWorkflows, WorkflowBundleError, type BundleWorkflowsOptions } from '../runtime/workflow-bundle.js';
export { defineConfig, type CairnConfig } from '../runtime/project-config.js';
export {
  replayHistories,
  readHistoryFile,
  serverHistories,
  type ReplayOptions,
  type ReplayOutcome,
  type ReplaySource,
  type ServerHistoriesOptions,
} from '../runtime/replay.js';
export { connectFromEnvironment, type Connected } from '../runtime/connection.js';
export { DEFAULT_TASK_QUEUE } from '../runtime/temporal-target.js';
export {
  aiSdkModel,
  ModelConfigError,
  ModelNetworkError,
  ModelServerError,
  resolveModel,
  type AiSdkModelOptions,
  type GenerateInput,
  type ModelClient,
  type ModelEnvironment,
  type ModelProvider,
  type ResolveModelOptions,
} from '../activities/model/index.js';
export type { ModelFailure, ModelOutcome, ModelResponse, ToolChoice } from '../shared/model/model-response.js';
export { runEval, type EvalProgress, type RunEvalOptions } from '../runtime/eval/run-eval.js';
export {
  gateBuild,
  type BuildGateResult,
  type GateBuildOptions,
  type GateEvaluation,
  type GateEvaluationResult,
} from '../runtime/deploy-gate.js';
export type { GateThresholds } from '../runtime/deploy-gate-thresholds.js';
export { upgradeRuns, type UpgradeRunsOptions, type UpgradeRunsResult } from '../runtime/run-upgrades.js';
export type {
  CaseReport,
  EvalReport,
  GateResult,
  LaneReport,
  LaneSummary,
  NewAsk,
} from '../runtime/eval/eval-results.js';
export { exportCases, type CaseErrorCode } from '../runtime/eval/eval-cases.js';
export { htmlReport, junitXml, summaryText } from '../runtime/eval/eval-report.js';
export type { ScoreResult } from '../runtime/eval/scoring.js';
export type { Served } from '../runtime/eval/lane-run.js';
