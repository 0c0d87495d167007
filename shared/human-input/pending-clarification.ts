/** A question a run asks a person, as it waits for the answer (the planner's, the contract's, the servers'). Plain data. */
import type { JsonObject } from '../json/json.js';

/** A question only the human can answer. */
export interface PendingClarification {
  readonly id: string;
  readonly question: string;
  /** The tool whose missing arguments the answer fills, if the question is about one. */
  readonly tool?: string;
  readonly missingFields?: readonly string[];
  readonly exampleInput?: JsonObject;
}
