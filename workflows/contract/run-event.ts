/**
 * The events of a run's live stream, one per thing that happened: the run starting, each model
 * turn (with usage), each tool call starting and ending (the ToolResult, error chain and hint
 * included), each planner decision, a question, a review, what a person sent, a hand-over, the
 * finish. Large values arrive cut to a preview (workflows/run-events.ts builds them). Part of the
 * run's contract (workflows/contract/index.ts): workflow-safe types.
 */
import type { JsonValue } from '../../shared/json/json.js';
import type { PendingClarification, PendingReview, StepAction } from '../../planner/index.js';
import type { ChildLink } from './run-state.js';

/** What every event carries. */
export interface RunEventBase {
  /** Workflow time, ms since the epoch. */
  readonly at: number;
  /** Model turns so far. */
  readonly turn: number;
}

export type RunEvent =
  | (RunEventBase & { readonly type: 'run_started'; readonly agent: string; readonly prompt: string })
  | (RunEventBase & {
      readonly type: 'model_turn';
      /** The model call (its activity id, e.g. `model:3:1`), as its live deltas name it; absent in runs that let Temporal number activities. */
      readonly call?: string;
      readonly text?: string;
      readonly toolCalls?: readonly string[];
      readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number };
      readonly error?: { readonly code: string; readonly message: string };
    })
  | (RunEventBase & {
      readonly type: 'tool_start';
      readonly toolCallId: string;
      readonly name: string;
      readonly args: JsonValue;
    })
  | (RunEventBase & {
      readonly type: 'tool_end';
      readonly toolCallId: string;
      readonly name: string;
      readonly result: JsonValue;
      /** A call refused at the boundary (it never started): the arguments the model sent, previewed. */
      readonly args?: JsonValue;
    })
  | (RunEventBase & {
      readonly type: 'decision';
      readonly seq: number;
      readonly action: StepAction;
      readonly detail: string;
    })
  | (RunEventBase & {
      readonly type: 'question';
      readonly clarification: PendingClarification;
      readonly child?: ChildLink;
    })
  | (RunEventBase & { readonly type: 'review'; readonly reviews: readonly PendingReview[]; readonly child?: ChildLink })
  | (RunEventBase & {
      readonly type: 'human';
      readonly kind: HumanKind;
      readonly id: string;
      readonly detail: JsonValue;
    })
  | (RunEventBase & {
      readonly type: 'hand_over';
      readonly generation: number;
      /** The run moves to this build (an auto-upgrade at a safe point), when a Signal named it. */
      readonly upgradeTo?: string;
    })
  | (RunEventBase & {
      readonly type: 'agent_changed';
      /** The agent versions (shared/agent/agent-version.ts) before and after. */
      readonly from: string;
      readonly to: string;
      /** The build the run continues on, when versioned. */
      readonly buildId?: string;
    })
  | (RunEventBase & {
      readonly type: 'finish';
      readonly answer: string;
      readonly reason: string | null;
      readonly toolCalls: number;
    });

export type RunEventType = RunEvent['type'];

/** What a person sent a run. */
export type HumanKind = 'answer' | 'review' | 'budget' | 'pause' | 'resume' | 'cancel' | 'message';
