/**
 * The fence a `once` call passes before its `execute` begins. The activity (`runOnceTool`) first
 * sends the server a heartbeat whose details are `ONCE_BEGAN` and waits for the answer; only then
 * does `execute` run, and every later heartbeat carries the same details. The server keeps the
 * last heartbeat's details and hands them to the workflow with a timeout. So a timed-out attempt
 * whose details are not `ONCE_BEGAN` provably never reached `execute` (a busy worker that took the
 * task and did not get to it in time, or died first): the call runs again; nobody is asked.
 *
 * A new activity type rather than a flag on `runTool`: a worker of an earlier release, which sends
 * no such details, cannot take the call (it answers "not registered", which also ran nothing).
 * Workflow-safe, deterministic.
 */

/** The heartbeat details that say `execute` may have begun. */
export const ONCE_BEGAN = 'cairn:once-began';

/** The activity type of a fenced `once` call; same input and result as `runTool`. */
export const RUN_ONCE_TOOL = 'runOnceTool';

/** The `patched()` id under which a workflow schedules `once` calls as `runOnceTool`. */
export const ONCE_FENCE_PATCH = 'cairn-once-fence';

/** Activity types that run a tool call: `runTool`, and `runOnceTool` for fenced `once` calls. */
export const TOOL_ACTIVITY_TYPES: ReadonlySet<string> = new Set(['runTool', RUN_ONCE_TOOL]);

/** The name on a timeout's error link when the attempt never began (failures/after-retries.ts). */
export const NOT_BEGUN = 'CairnNotBegun';
