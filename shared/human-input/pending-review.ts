/** A tool call a run holds for a person's review (the planner's, the contract's, the servers'). Plain data. */
import type { JsonValue } from '../json/json.js';
import type { ReviewDecisionType } from './review-decision.js';

/** A tool call waiting for a human's accept / edit / respond / reject. */
export interface PendingReview {
  readonly toolCallId: string;
  readonly name: string;
  readonly args: JsonValue;
  /** Decisions must name this hash: a decision about other arguments is stale and fails closed. */
  readonly argsHash: string;
  /** The decisions the tool allows (all four when absent: reviews carried from older runs). */
  readonly allowed?: readonly ReviewDecisionType[];
  /** What the tool tells the reviewer to check. */
  readonly description?: string;
  /**
   * What the call would change, for the reviewer: a unified diff against the run's workspace for a
   * workspace write or patch (docs/workspaces.md), cut at 16,000 characters. Absent otherwise.
   */
  readonly change?: string;
}
