/**
 * `npm run temporal:cli`: finds or builds the Temporal CLI the way tests and the demo do
 * (TEMPORAL_CLI_PATH → PATH → this checkout's .cache → the machine cache → go install, with
 * progress lines) and prints its path. Useful to warm a CI cache or a Docker layer before the
 * first test run. Node-only.
 */
import { resolveTemporalCli } from '../runtime/temporal-cli.js';

const executable = await resolveTemporalCli({ log: (line) => console.error(line), allowDownload: false });
console.log(executable.type === 'existing-path' ? executable.path : executable.type);
