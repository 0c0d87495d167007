/**
 * What a tool call's failure means once Temporal's retries are exhausted and the workflow holds
 * only the failure chain: a cancelled call stays cancelled (the tool is not at fault), a failure
 * typed with a Cairn code keeps its code, a timeout stays a timeout, and a tool whose `execute`
 * kept throwing is an `internal_error` carrying what it threw (the tool stays available: only
 * `ToolFailure.unavailable` disables a tool; docs/tools.md, "When execute throws") — except for a
 * `once` tool, whose attempt may have done its side effect before it timed out or crashed: that
 * outcome is unknown, and saying "transient, try again" would pay a refund twice. A `once` attempt
 * that provably never began (tools/once-fence.ts) is a timeout marked `NOT_BEGUN`: it runs again.
 * Workflow-safe, deterministic.
 */
import type { SideEffects } from '../tools/define-tool.js';
import type { ToolErrorCode } from './failure-taxonomy.js';
import { errorChain, toolError, type ToolError } from './tool-error.js';
import { errorResult, type ResultFor, type ToolFailureResult, type ToolResult } from '../tools/tool-result.js';
import { NOT_BEGUN } from '../tools/once-fence.js';

/**
 * The result to record for `call` after its activity failed with `cause` (read with `fromError`).
 * Pass the tool's `sideEffects`: for `once` tools a timeout (other than one before the attempt
 * started) or a crash becomes `outcome_unknown`. `notBegun`: the fence says `execute` never began
 * (only a fenced `once` call can know; tool-dispatch.ts).
 */
export function resultAfterRetries(
  call: ResultFor,
  cause: ToolError,
  sideEffects: SideEffects = 'none',
  notBegun = false,
): ToolFailureResult {
  if (notBegun && sideEffects === 'once') {
    const message = `${call.name} did not begin before its attempt ended (a busy or stopped worker); nothing ran, so it runs again.`;
    return errorResult(call, { ...toolError('timeout', message, cause), name: NOT_BEGUN }, { message });
  }
  const { code, message } = classify(call.name, cause, sideEffects === 'once');
  return errorResult(call, toolError(code, message, cause), { message });
}

/** True for a `once` call's result whose `execute` provably never began: it may simply run again. */
export function notBegun(result: ToolResult): boolean {
  return result.status === 'error' && result.error.name === NOT_BEGUN && result.error.code === 'timeout';
}

function classify(name: string, cause: ToolError, once: boolean): { code: ToolErrorCode; message: string } {
  const links = errorChain(cause);
  if (links.some((link) => link.name === 'CancelledFailure')) {
    const effect = once ? ' Whether it took effect before the cancel is unknown.' : '';
    return {
      code: 'cancelled',
      message: `${name} was cancelled before it finished; the tool is not at fault.${effect}`,
    };
  }
  if (once && (cause.code === 'timeout' || cause.code === 'internal_error') && !neverStarted(links)) {
    const what = cause.code === 'timeout' ? 'timed out (its worker may have died)' : 'crashed';
    return {
      code: 'outcome_unknown',
      message:
        `${name} ${what} before reporting a result, so whether it took effect is unknown. ` +
        `Do not call it again to find out: check its effect another way, or ask the user.`,
    };
  }
  // A hang is not retried by Temporal (scheduleToClose = startToClose): the planner backs off and runs it again.
  if (cause.code === 'timeout') return { code: 'timeout', message: `${name} did not answer in time.` };
  // fromError names an ApplicationFailure's link by its type: that link says what went wrong.
  if (cause.code !== 'internal_error')
    return { code: cause.code, message: (links.find((link) => link.name === cause.code) ?? cause).message };
  // A throw: the activity carried the thrown message as the internal_error link's message.
  const thrown = links.find((link) => link.name === 'internal_error')?.message ?? cause.message;
  return { code: 'internal_error', message: `${name} threw: ${thrown}` };
}

/** A schedule-to-start timeout: no worker ever picked the attempt up, so nothing ran. */
function neverStarted(links: readonly ToolError[]): boolean {
  return links.some((link) => link.code === 'timeout' && link.message.includes('(SCHEDULE_TO_START)'));
}
