/**
 * The eval bench's yardstick (bench/eval.ts): a case's turns on Temporal with nothing else, four
 * model activities with an instant tool activity between each two, as an evaluation's candidate
 * run has them. What Temporal itself costs for those turns on the machine, with no Cairn module in
 * the bundle. Workflow code, bundled alone.
 */
import { proxyActivities } from '@temporalio/workflow';

export interface BareLoopActivities {
  /** A model turn of `ms`. */
  modelTurn(ms: number): Promise<string>;
  /** A tool call answered at once, as a recording answers it. */
  recordedTool(id: string): Promise<string>;
}

const { modelTurn, recordedTool } = proxyActivities<BareLoopActivities>({ startToCloseTimeout: '1 minute' });

export async function bareLoop(modelMs: number): Promise<number> {
  for (let call = 1; call <= 3; call++) {
    await modelTurn(modelMs);
    await recordedTool(String(call));
  }
  await modelTurn(modelMs);
  return 4;
}
