/**
 * How a person may decide a tool call held for review (seed 003): which decisions the tool
 * allows — `accept` (run it), `edit` (run it with other arguments), `respond` (do not run it; the
 * reviewer's content is the result), `reject` (do not run it; the model is told why) — and what
 * the reviewer is told about the call. Declared on the tool; a decision it does not allow is
 * refused before anything enters history. Workflow-safe, deterministic.
 */
import { DefinitionError } from '../failures/definition-error.js';
import { REVIEW_DECISIONS, type ReviewDecisionType } from '../human-input/review-decision.js';

export interface ReviewConfig {
  /** The decisions a reviewer may take; all four when left out. */
  readonly allow?: readonly ReviewDecisionType[];
  /** Shown to the reviewer with the call: what to check before saying yes. */
  readonly description?: string;
}

/** The longest review description, in characters: it travels with the run's state. */
export const MAX_REVIEW_DESCRIPTION_CHARS = 1_000;

/** `config` checked (a non-empty set of known decisions, a bounded description); throws DefinitionError. */
export function checkReviewConfig(tool: string, config: ReviewConfig | undefined): ReviewConfig | undefined {
  if (config === undefined) return undefined;
  const allow = config.allow;
  if (
    allow !== undefined &&
    (!Array.isArray(allow) || allow.length === 0 || allow.some((d) => !REVIEW_DECISIONS.includes(d)))
  ) {
    throw new DefinitionError(
      'invalid_review_config',
      `The review of ${tool} must allow one or more of ${REVIEW_DECISIONS.join(', ')}.`,
    );
  }
  const description = config.description;
  if (
    description !== undefined &&
    (typeof description !== 'string' || description.trim() === '' || description.length > MAX_REVIEW_DESCRIPTION_CHARS)
  ) {
    throw new DefinitionError(
      'invalid_review_config',
      `The review description of ${tool} must be text of at most ${MAX_REVIEW_DESCRIPTION_CHARS} characters.`,
    );
  }
  return Object.freeze({
    ...(allow && { allow: Object.freeze([...new Set(allow)]) }),
    ...(description && { description: description.trim() }),
  });
}
