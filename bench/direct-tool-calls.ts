/**
 * Issue #4's floor: the tool activity called N times straight from a workflow, with the options
 * agentRun gives the tool, and nothing else (no model turns, no planner, no transcript).
 * Workflow code, bundled by bench/workflows.ts.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { activityOptions } from '../workflows/tool-dispatch.js';
import { fetchRecord, recordId } from './bench-agent.js';

const { runTool } = proxyActivities<{ runTool(input: RunToolInput): Promise<ToolResult> }>(
  activityOptions(fetchRecord),
);

export interface DirectToolCallsInput {
  readonly calls: number;
  /** All calls at once (one batch), or one after the other. */
  readonly parallel: boolean;
}

/** Returns how many calls succeeded. */
export async function directToolCalls({ calls, parallel }: DirectToolCallsInput): Promise<number> {
  // The same ids and arguments the scripted model sends agentRun: turn.index, one turn per call or one batch.
  const call = (turn: number, index: number) =>
    runTool({ name: fetchRecord.name, toolCallId: `${turn}.${index}`, args: { id: recordId(turn, index) } });
  const numbers = Array.from({ length: calls }, (_, i) => i + 1);
  const results: ToolResult[] = [];
  if (parallel) results.push(...(await Promise.all(numbers.map((index) => call(1, index)))));
  else for (const turn of numbers) results.push(await call(turn, 1));
  return results.filter((r) => r.status === 'ok').length;
}
