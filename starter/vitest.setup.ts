/** vitest's global setup (vitest.config.ts): the Temporal CLI, ready before the first test. */
import { prepareTemporalCli } from 'cairn-agents/testing';

export default async function setup(): Promise<void> {
  await prepareTemporalCli({ log: (line) => console.log(line) });
}
