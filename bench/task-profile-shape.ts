/**
 * What both loops of bench/workflow-task-profile.ts share, without zod or Cairn's modules (the plain
 * loop's bundle imports it, and a hand-written loop's bundle evaluates nothing of Cairn's per run).
 * Workflow-safe constants.
 */

/** Model turns after which both loops continue as new (agentRun's `continueAsNewAfterTurns`). */
export const TURNS_PER_RUN = 2;
/** The question's id in agentRun (a run's first); the plain loop takes any. */
export const QUESTION_ID = 'q1';
export const PERSON_ANSWER = 'morning';
export const PROFILE_AGENT = 'task-profile';
export const PROFILE_PROMPT = 'Fetch the records and schedule the delivery, then say you are done.';
export const PROFILE_INSTRUCTIONS =
  'You are a benchmark agent: fetch the records you are asked for, schedule the delivery, then answer.';
export const PROFILE_TOOL_NAMES = ['fetch_record', 'schedule_delivery'] as const;
