/**
 * For a test runner's global setup (vitest's `globalSetup`, which has no timeout): finds the
 * Temporal CLI the embedded dev server runs, or builds it once for the machine with progress
 * lines, before any test starts — so `startTestEnvironment` in a `beforeAll` never spends its
 * hook timeout on a build. Sets TEMPORAL_CLI_PATH for the test processes it starts. Node-only.
 */
import { resolveTemporalCli } from '../runtime/temporal-cli.js';

/** Returns the CLI's path, or undefined when the Temporal SDK will download it (no Go, internet). */
export async function prepareTemporalCli(
  options: { readonly log?: (line: string) => void } = {},
): Promise<string | undefined> {
  // A server of yours (TEMPORAL_ADDRESS) needs no CLI; startTestEnvironment({ address }) uses it.
  const executable = await resolveTemporalCli({ ...(options.log && { log: options.log }) });
  if (executable.type !== 'existing-path') return undefined;
  process.env.TEMPORAL_CLI_PATH ??= executable.path;
  return executable.path;
}
