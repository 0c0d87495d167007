/**
 * The plain Temporal loop of bench/plain-agent-loop.ts (transcript through a Query, the same model
 * and tool activities with the same options), grown the two things a real run has that it lacks: a
 * person's answer and continue-as-new. When a tool result asks a question (a `clarifyingQuestion`
 * hint), the loop waits for the same `answerClarification` Update agentRun takes and hands the
 * answer to the model as a user message; after TURNS_PER_RUN model turns it continues as new with
 * its transcript. Nothing else: no planner, no argument checks, no summaries, no store.
 *
 * It imports none of Cairn's workflow modules and no zod (its activity options are agentRun's,
 * written out), so bundled alone (bench/workflow-task-profile.ts) a run evaluates only what a
 * hand-written loop would. Workflow code; also the bundle entry of that bench's plain worker.
 */
import {
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { ModelOutcome, ModelRequest } from '../shared/model/model-response.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import { toModelView } from '../shared/tools/model-view.js';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { answerClarificationUpdate } from '../workflows/contract/human-messages.js';
import { transcriptQuery } from '../workflows/contract/run-state.js';
import { PROFILE_INSTRUCTIONS, PROFILE_PROMPT, PROFILE_TOOL_NAMES, TURNS_PER_RUN } from './task-profile-shape.js';

/** workflows/take-step.ts MODEL_ACTIVITY_OPTIONS. */
const MODEL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2m',
  heartbeatTimeout: '10s',
  retry: { maximumAttempts: 5, initialInterval: '1s', nonRetryableErrorTypes: ['ModelConfigError'] },
};
/** workflows/tool-dispatch.ts activityOptions() of a tool with no timeouts or retry of its own. */
const TOOL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: 30_000,
  scheduleToCloseTimeout: 30_000,
  heartbeatTimeout: 10_000,
  retry: { maximumAttempts: 3, initialInterval: 1_000, backoffCoefficient: 2, maximumInterval: 30_000 },
};
const { callModel } = proxyActivities<{ callModel(request: ModelRequest): Promise<ModelOutcome> }>(MODEL_OPTIONS);
const { runTool } = proxyActivities<{ runTool(input: RunToolInput): Promise<ToolResult> }>(TOOL_OPTIONS);

export interface PlainPersonLoopInput {
  readonly model: string;
  /** Set by continue-as-new. */
  readonly carried?: { readonly transcript: TranscriptMessage[]; readonly turns: number; readonly toolCalls: number };
}

export interface PlainPersonLoopResult {
  readonly turns: number;
  readonly toolCalls: number;
}

export async function plainPersonLoop({ model, carried }: PlainPersonLoopInput): Promise<PlainPersonLoopResult> {
  const transcript: TranscriptMessage[] = carried?.transcript ?? [
    { role: 'system', content: PROFILE_INSTRUCTIONS },
    { role: 'user', content: PROFILE_PROMPT },
  ];
  let answer: string | undefined;
  setHandler(transcriptQuery, ({ from = 0, length }) => transcript.slice(from, length));
  setHandler(answerClarificationUpdate, ({ answer: given }) => {
    answer = String(given);
  });
  const toolNames = [...PROFILE_TOOL_NAMES];
  let turns = carried?.turns ?? 0;
  let toolCalls = carried?.toolCalls ?? 0;
  for (let turnsThisRun = 0; ; turnsThisRun++) {
    if (turnsThisRun >= TURNS_PER_RUN)
      return continueAsNew<typeof plainPersonLoop>({ model, carried: { transcript, turns, toolCalls } });
    const outcome = await callModel({ transcriptLength: transcript.length, toolNames, toolChoice: 'auto', model });
    turns += 1;
    if (outcome.status !== 'ok' || !outcome.response)
      throw ApplicationFailure.nonRetryable(`The bench model failed on turn ${turns}.`, 'bench_model_failed');
    const { text, toolCalls: raw } = outcome.response;
    const calls: ToolCall[] = raw.map((call, i) => ({
      toolCallId: `${turns}.${i + 1}`,
      ...(call.id ? { providerCallId: call.id } : {}),
      name: call.name,
      args: JSON.parse(call.arguments),
    }));
    transcript.push({ role: 'assistant', content: text, toolCalls: calls });
    if (calls.length === 0) return { turns, toolCalls };
    const results = await Promise.all(calls.map(({ name, toolCallId, args }) => runTool({ name, toolCallId, args })));
    for (const [i, result] of results.entries())
      transcript.push({
        role: 'tool',
        toolCallId: result.toolCallId,
        providerCallId: calls[i]!.providerCallId,
        name: result.name,
        content: toModelView(result),
      });
    toolCalls += calls.length;
    const question = results.find((r) => r.status === 'error' && r.retryHint?.clarifyingQuestion);
    if (question) {
      await condition(() => answer !== undefined);
      transcript.push({ role: 'user', content: answer! });
      answer = undefined;
    }
  }
}
