/**
 * `cairn-agents/eval`: what an eval module is made of — `defineEval` (the agent, the candidate
 * change, the cases, the scorers, the gates) and the scorers. Workflow-safe: `cairn eval` bundles
 * the eval module into the evaluation's workflow code (its candidate agent runs there), so nothing
 * here touches Node. The evaluation itself (`runEval`, `exportCases`, the report writers) is in
 * `cairn-agents/worker`; the command is `cairn eval` (docs/evals.md).
 *
 * Who imports it: your eval modules.
 */
export {
  candidateAgent,
  contains,
  defineEval,
  exact,
  judge,
  matchesSchema,
  scorer,
  type Candidate,
  type CaseSources,
  type DatasetCase,
  type EvalConfig,
  type EvalDefinition,
  type EvalLane,
  type Gates,
  type Score,
  type ScoreInput,
  type Scorer,
  type ToolMode,
} from '../shared/eval/define-eval.js';
export type { ChangeKind, DecisionChange, DecisionTrace, TracedCall } from '../shared/eval/decision-trace.js';
