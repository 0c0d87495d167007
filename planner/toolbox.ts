/**
 * How the planner sees an agent's tools: something that checks a raw model call into a
 * CheckedCall — parsed, validated, identified by its call key, with the tool's side effects and
 * whether a human must review it. The workflow and the in-memory harness both check calls here.
 * Workflow-safe, deterministic.
 */
import { callKey } from '../shared/identity/call-key.js';
import { needsApproval, type AnyTool, type SideEffects } from '../shared/tools/define-tool.js';
import type { RawToolCall } from '../shared/model/model-response.js';
import type { ReviewConfig } from '../shared/tools/review-config.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import { checkToolCall } from '../shared/guards/validate-arguments.js';
import type { CheckedCall } from './plan.js';

export interface Toolbox {
  /** Checks one raw call; never throws. A call that must not run carries its `failure`. */
  check(raw: RawToolCall, toolCallId: string): CheckedCall;
}

/** What the planner needs to know of a call that passed its checks, or the failure of one that did not. */
export type CallFacts =
  | {
      readonly sideEffects: SideEffects;
      readonly needsApproval: boolean;
      readonly review?: ReviewConfig;
      readonly reconcile?: true;
      readonly failure?: undefined;
    }
  | { readonly failure: ToolResult };

/** A CheckedCall from a call, its argument hash and the facts about it. */
export function checkedCall(call: ToolCall, argsHash: string, facts: CallFacts): CheckedCall {
  const key = callKey(call.name, argsHash);
  if (facts.failure) return { call, argsHash, key, sideEffects: 'none', needsApproval: false, failure: facts.failure };
  return {
    call,
    argsHash,
    key,
    sideEffects: facts.sideEffects,
    needsApproval: facts.needsApproval,
    ...(facts.needsApproval && facts.review && { review: facts.review }),
    ...(facts.reconcile && facts.sideEffects === 'once' && { reconcile: true as const }),
  };
}

/** The toolbox of an agent's tools: schema checks (shared/guards/validate-arguments) and approval rules. */
export function toolboxOf(tools: readonly AnyTool[]): Toolbox {
  return {
    check(raw, toolCallId) {
      const checked = checkToolCall(raw, tools, { toolCallId });
      if (checked.failure) return checkedCall(checked.call, checked.argsHash, { failure: checked.failure });
      const { tool, call } = checked;
      return checkedCall(call, checked.argsHash, {
        sideEffects: tool.sideEffects,
        needsApproval: needsApproval(tool, call.args),
        ...(tool.review && { review: tool.review }),
        ...(tool.reconcile && { reconcile: true as const }),
      });
    },
  };
}
