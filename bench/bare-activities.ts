/**
 * The bare activity the latency bench measures Cairn's tool activity against: the same 1 KB
 * record `fetch_record` returns, with none of the tool activity's work (argument checks, the
 * ToolResult envelope, heartbeats, size guards). Worker side.
 */
import { benchRecord } from './bench-agent.js';

export const bareActivities = {
  async bareFetchRecord(id: string): Promise<ReturnType<typeof benchRecord>> {
    return benchRecord(id);
  },
};
