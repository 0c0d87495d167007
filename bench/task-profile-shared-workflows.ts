/**
 * bench/workflow-task-profile.ts with `--shared-bundle`: agentRun and the plain loop in one bundle,
 * as bench/workflows.ts has them for the other benches. Every run evaluates the whole bundle's
 * modules, so the plain loop then pays for Cairn's too.
 */
export { agentRun } from './task-profile-workflows.js';
export { plainPersonLoop } from './plain-person-loop.js';
