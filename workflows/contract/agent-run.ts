/**
 * The agentRun workflow's signature: what starts a run, what it returns, and what one run of a
 * chain hands the next (continue-as-new). Part of the run's contract (workflows/contract/index.ts):
 * workflow-safe types, imported by the workflow and by clients alike.
 */
import type { CarriedPush } from './status-push.js';
import type { JsonValue } from '../../shared/json/json.js';
import type { McpListing } from '../../shared/mcp/mcp-server.js';
import type { TranscriptMessage } from '../../shared/model/transcript.js';
import type { RunOutcome } from '../../shared/agent/run-outcome.js';
import type { RunUsage } from '../../shared/model/model-usage.js';
import type { DecidedReview } from '../../shared/human-input/review-decision.js';
import type { ErrorSummary, PlannerState, PlanStep, PolicyOverrides, UserMessage } from '../../planner/index.js';
import type { StepLogEntry } from './run-state.js';
import type { FinalStream, StreamState } from './stream-protocol.js';

export interface AgentRunInput {
  /** The agent's registered name. */
  readonly agent: string;
  readonly prompt: string;
  /** Overrides the agent's model, e.g. `scripted:orders-demo` or `openai:gpt-4.1-mini`. */
  readonly model?: string;
  readonly policy?: PolicyOverrides;
  /** Upsert Cairn's search attributes (CairnAgent, CairnPhase); the server must have them registered. */
  readonly searchAttributes?: boolean;
  /** Also upsert CairnAgentVersion (the agent's version); the server must have it registered too. */
  readonly agentVersionAttribute?: boolean;
  /** Continue as new after this many model turns even if Temporal does not suggest it yet. */
  readonly continueAsNewAfterTurns?: number;
  /** The tenant the run belongs to (its owner; child runs inherit it). */
  readonly tenant?: string;
  /** The user who started the run, where known (child runs inherit it). */
  readonly user?: string;
  /** How many agent tools deep this run is (set for child runs; at most MAX_AGENT_DEPTH). */
  readonly depth?: number;
  /**
   * Start the run's workspace from a snapshot (another run's `result.workspace`) instead of the
   * agent's `workspace.from` (docs/workspaces.md). Only for agents with a workspace.
   */
  readonly workspace?: { readonly snapshot: string };
  /** Set by continue-as-new: where the previous run stopped. */
  readonly carried?: CarriedRun;
}

/** The agentRun workflow's signature, for typed client calls (`client.workflow.start<AgentRunWorkflow>('agentRun', …)`). */
export type AgentRunWorkflow = (input: AgentRunInput) => Promise<AgentRunResult>;

/** What a run hands to its continuation: compacted, and enough to resume any pending wait. */
export interface CarriedRun {
  readonly state: PlannerState;
  readonly step: PlanStep;
  readonly transcript: readonly TranscriptMessage[];
  readonly generation: number;
  /** An answer that arrived while the run was handing over, not yet acted on. */
  readonly answer?: JsonValue;
  /** Review decisions taken so far: pending ones still apply, repeats stay no-ops. */
  readonly decisions?: Readonly<Record<string, DecidedReview>>;
  /** The step log, so watchers see one story across the chain (numbering continues). */
  readonly steps?: readonly StepLogEntry[];
  /** The run was paused when it handed over, and stays paused. */
  readonly paused?: boolean;
  /** The live event stream's newest events and offset: offsets continue in the next run. */
  readonly stream?: StreamState;
  /** The MCP servers' tools as listed when the chain started (shared/mcp/mcp-server.ts). */
  readonly mcp?: readonly McpListing[];
  /** Messages people sent that the model has not read yet (workflows/user-messages.ts). */
  readonly messages?: CarriedMessages;
  /** Push targets and the notifications not yet taken (workflows/status-push.ts). */
  readonly push?: CarriedPush;
  /** The version of the agent the previous run ran (shared/agent/agent-version.ts): the next says when it differs. */
  readonly agentVersion?: string;
}

export interface AgentRunResult {
  /** The model's answer; for a run that `ended`, what the run says about why (or the forced final turn's answer). */
  readonly answer: string;
  /** Why the run ended early (a cap, a loop, a cancel), or null when the model finished. Kept for compatibility: read `outcome`. */
  readonly reason: string | null;
  /**
   * Answered (the model finished on its own), or ended with a stable code (`budget_exhausted`,
   * `limit_reached`, `cancelled`…; shared/agent/run-outcome.ts). Results of runs from before it lack it.
   * A run whose model cannot be used fails instead (its ApplicationFailure's type is the code), unless
   * its policy says `onModelFailure: 'end'`: then it completes with that code here.
   */
  readonly outcome: RunOutcome;
  /** Tokens and cost of the run's model calls, per model too, across continue-as-new. */
  readonly usage?: RunUsage;
  readonly turns: number;
  readonly toolCalls: number;
  /** How many times the run continued as new. */
  readonly generation: number;
  /** The latest tool errors, oldest first: a parent run chains them when this run was its tool. */
  readonly errors?: readonly ErrorSummary[];
  /** The digest of the run's workspace as it finished (docs/workspaces.md); absent without one. */
  readonly workspace?: string;
  /**
   * The run's event stream as it completed (its newest events, up to 300,000 characters), so its
   * events are read from history with no worker (`run.events()`, `GET /runs/:id/events`). Absent
   * for a child run (its parent's history would hold it too) and for runs from before it.
   */
  readonly stream?: FinalStream;
}

/** What the next run of the chain keeps of people's messages: those not yet delivered, and the count ids continue from. */
export interface CarriedMessages {
  readonly queued: readonly UserMessage[];
  readonly count: number;
}
