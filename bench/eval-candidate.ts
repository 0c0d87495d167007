/**
 * A second evaluation of the eval bench's agent (bench/eval.ts): another module, so another
 * candidate's code and lane runs, but the same agent on the same cases, so its baselines are the
 * ones the first evaluation kept. Workflow-safe: `runEval` bundles it.
 */
import { defineEval } from '../shared/eval/define-eval.js';
import { evalBenchAgent } from './eval-agents.js';

export default defineEval({
  agent: evalBenchAgent,
  candidate: { name: 'the next model', model: 'scripted:eval-bench' },
  cases: { histories: ['./recorded'] },
  concurrency: 16,
});
