/**
 * The provider-limits bench's baseline (bench/provider-limits.ts): the simplest agent loop on
 * Temporal, with Temporal's default retry policy doing all the waiting. A model activity that
 * throws on a 429 (retried from 1 s, doubling, up to 100 s, forever), the tool activity, again
 * until the model answers. The transcript is the activity's input (no Query). Workflow code,
 * bundled by bench/workflows.ts.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { ModelOutcome } from '../shared/model/model-response.js';
import { toModelView } from '../shared/tools/model-view.js';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { NaiveModelRequest } from './naive-model-activity.js';
import { activityOptions } from '../workflows/tool-dispatch.js';
import { BENCH_PROMPT, benchAgent, fetchRecord } from './bench-agent.js';

// Temporal's default retry policy: no `retry` given.
const { callModelOrThrow } = proxyActivities<{ callModelOrThrow(request: NaiveModelRequest): Promise<ModelOutcome> }>({
  startToCloseTimeout: '2m',
});
const { runTool } = proxyActivities<{ runTool(input: RunToolInput): Promise<ToolResult> }>(
  activityOptions(fetchRecord),
);

export async function plainRetryLoop({ model }: { model: string }): Promise<{ turns: number }> {
  const transcript: TranscriptMessage[] = [
    { role: 'system', content: benchAgent.instructions },
    { role: 'user', content: BENCH_PROMPT },
  ];
  const toolNames = benchAgent.tools.map((tool) => tool.name);
  for (let turns = 1; ; turns++) {
    const outcome = await callModelOrThrow({ messages: transcript, toolNames, toolChoice: 'auto', model });
    if (outcome.status !== 'ok' || !outcome.response)
      throw ApplicationFailure.nonRetryable(`The model failed on turn ${turns}.`, 'bench_model_failed');
    const calls: ToolCall[] = outcome.response.toolCalls.map((call, i) => ({
      toolCallId: `${turns}.${i + 1}`,
      ...(call.id ? { providerCallId: call.id } : {}),
      name: call.name,
      args: JSON.parse(call.arguments),
    }));
    transcript.push({ role: 'assistant', content: outcome.response.text, toolCalls: calls });
    if (calls.length === 0) return { turns };
    const results = await Promise.all(calls.map(({ name, toolCallId, args }) => runTool({ name, toolCallId, args })));
    for (const [i, result] of results.entries())
      transcript.push({
        role: 'tool',
        toolCallId: result.toolCallId,
        providerCallId: calls[i]!.providerCallId,
        name: result.name,
        content: toModelView(result),
      });
  }
}
