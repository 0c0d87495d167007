/**
 * What a run waits for, as its memo (`cairnWaiting`) publishes it for the inbox
 * (workflows/inbox-memo.ts writes it; servers/http/inbox.ts reads it from visibility). Part of the
 * run's contract (workflows/contract/index.ts). Workflow-safe types.
 */
import type { RunBudget, RunState } from './run-state.js';

export const WAITING_MEMO = 'cairnWaiting';

export interface WaitingSummary {
  readonly v: 1;
  readonly agent: string;
  readonly phase: string;
  /** Epoch milliseconds (workflow time) when the run began to wait for what it waits for now. */
  readonly since: number;
  readonly tenant?: string;
  readonly request: string;
  readonly exchange: readonly { readonly role: 'user' | 'assistant'; readonly text: string }[];
  readonly clarification: RunState['clarification'];
  readonly reviews: RunState['reviews'];
  /** The run's spending and its pending budget request, while it waits on one. */
  readonly budget?: RunBudget;
  /** The reviews' arguments were left out to keep the memo small. */
  readonly truncated?: true;
}
