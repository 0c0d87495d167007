/**
 * The eval bench's evaluation (bench/eval.ts) of its agent (eval-agents.ts). The candidate is the
 * same scripted model, so every case replays cleanly. Workflow-safe: `runEval` bundles it.
 */
import { defineEval } from '../shared/eval/define-eval.js';
import { evalBenchAgent } from './eval-agents.js';

export default defineEval({
  agent: evalBenchAgent,
  candidate: { name: 'same model', model: 'scripted:eval-bench' },
  // bench/eval.ts passes the folder it recorded into.
  cases: { histories: ['./recorded'] },
  concurrency: 16,
});
