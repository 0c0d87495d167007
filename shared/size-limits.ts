/**
 * Every size and depth limit Cairn enforces, in one place (docs/size-limits.md explains each).
 * Temporal's own limits are the physics: a payload over 2 MB is refused by the server, a gRPC
 * message over 4 MB cannot even be sent, and history warns at 10 MB. Cairn's limits sit well
 * below them so that no single value can reach them by accident. Workflow-safe, deterministic.
 */

const KiB = 1024;

/** The largest answer, review decision or message a person may send, in characters (of JSON for objects). */
export const MAX_HUMAN_INPUT_CHARS = 20_000;

/** Temporal's server-side limit for one payload (blob): above it the server refuses the write. */
export const TEMPORAL_PAYLOAD_LIMIT_BYTES = 2 * KiB * KiB;

/**
 * How deep a tool call's arguments may nest (`{}` or `[]` is one level). Deeper arguments are
 * refused as `invalid_arguments` before any schema, hash or recursive step sees them: real tool
 * inputs are a few levels deep, and a payload 10,000 levels deep overflows recursive code.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** UTF-8 bytes of one tool call's argument text; larger arguments are refused as `invalid_arguments`. */
export const MAX_ARGUMENT_BYTES = 256 * KiB;

/** Field issues kept in one failure's hint (argument or output schema); the rest are counted. */
export const MAX_FIELD_ISSUES = 50;

/**
 * How many tool calls one model reply may carry; more make the reply `malformed_model_output`.
 * A turn runs at most `maxCallsPerTurn` (32) of them and refuses the rest one by one, each with a
 * result in history: this bounds that work.
 */
export const MAX_TOOL_CALLS_PER_REPLY = 1_000;

/** UTF-8 bytes of a whole model reply as JSON (text, calls, arguments); more make it `malformed_model_output`. */
export const MAX_MODEL_REPLY_BYTES = 512 * KiB;

/** Characters of a tool call's name or provider id; longer ones make the reply `malformed_model_output`. */
export const MAX_CALL_NAME_CHARS = 256;

/**
 * UTF-8 bytes of one ToolResult as JSON, by default. Above it, the activity keeps what fits
 * (`partial_data`, saying what was cut) or offloads the whole result to a PayloadStore.
 * Per tool: `defineTool({ maxResultBytes })`; per worker: `createToolActivities(..., { maxResultBytes })`.
 */
export const DEFAULT_MAX_RESULT_BYTES = 256 * KiB;

/** No configuration may raise a tool result above this: it leaves room under the 2 MB payload limit. */
export const HARD_MAX_RESULT_BYTES = 1536 * KiB;

/** Characters of a failure's message (each link of its cause chain) kept in a ToolResult. */
export const MAX_FAILURE_MESSAGE_CHARS = 2_000;

/** UTF-8 bytes of a RetryHint kept in a ToolResult; larger hints lose their largest fields first. */
export const MAX_HINT_BYTES = 16 * KiB;

/** Shadow-mode violations kept per tool result (distinct rule and field); the rest are counted. */
export const MAX_SHADOW_VIOLATIONS = 20;

/** Characters one `read_result` call may return at most. */
export const MAX_READ_RESULT_CHARS = 64 * KiB;
