/**
 * The baselines' agent loop: a model turn, the tool calls it asked for, again until it answers
 * with text. The same activities agentRun uses and nothing more: no planner, no argument checks,
 * no budgets, no UI summaries or details. How the model activity gets the transcript is the one
 * switch:
 * - `query`: as Cairn does it, `callModel` reads it through a Query on this run (issue #4's
 *   hand-written loop: agentRun against it is Cairn's own workflow-side cost);
 * - `input`: the naive design, the whole transcript is the activity's input every turn, so
 *   history grows with the square of the turns (issue #5's baseline).
 * Workflow code, bundled by bench/workflows.ts.
 */
import { ApplicationFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ModelOutcome, ModelRequest } from '../shared/model/model-response.js';
import { toModelView } from '../shared/tools/model-view.js';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import { MODEL_ACTIVITY_OPTIONS } from '../workflows/agent-run.js';
import { transcriptQuery } from '../workflows/contract/index.js';
import { activityOptions } from '../workflows/tool-dispatch.js';
import type { NaiveModelRequest } from './naive-model-activity.js';
import { BENCH_PROMPT, benchAgent, fetchRecord } from './bench-agent.js';

// The model activities with agentRun's options (workflows/agent-run.ts), the tool with dispatch's.
const { callModel, callModelWithTranscript } = proxyActivities<{
  callModel(request: ModelRequest): Promise<ModelOutcome>;
  callModelWithTranscript(request: NaiveModelRequest): Promise<ModelOutcome>;
}>(MODEL_ACTIVITY_OPTIONS);
const { runTool } = proxyActivities<{ runTool(input: RunToolInput): Promise<ToolResult> }>(
  activityOptions(fetchRecord),
);

export interface PlainAgentLoopInput {
  /** A `scripted:<name>` spec registered with the bench worker. */
  readonly model: string;
  readonly transcript: 'query' | 'input';
}

export interface PlainAgentLoopResult {
  readonly turns: number;
  readonly toolCalls: number;
}

export async function plainAgentLoop({ model, transcript: via }: PlainAgentLoopInput): Promise<PlainAgentLoopResult> {
  const transcript: TranscriptMessage[] = [
    { role: 'system', content: benchAgent.instructions },
    { role: 'user', content: BENCH_PROMPT },
  ];
  setHandler(transcriptQuery, ({ from = 0, length }) => transcript.slice(from, length));
  const toolNames = benchAgent.tools.map((tool) => tool.name);
  let turns = 0;
  let toolCalls = 0;
  for (;;) {
    const outcome =
      via === 'query'
        ? await callModel({ transcriptLength: transcript.length, toolNames, toolChoice: 'auto', model })
        : await callModelWithTranscript({ messages: transcript, toolNames, toolChoice: 'auto', model });
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
  }
}
