/** The eval bench's agents module, for the live re-run's worker (bench/eval.ts). Workflow-safe. */
export { evalBenchAgent } from './eval-module.js';
