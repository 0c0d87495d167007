/**
 * How live events sit in Redis for the ephemeral transport: one Redis Stream per workflow id
 * (`<prefix><workflowId>`), one entry per live event, its JSON in the field `event`. The worker
 * writes them (activities/live/redis-transport.ts), readers read them (client/redis-live-source.ts);
 * this is the contract between the two. A reader checks each entry: what is in Redis was written
 * by whoever can reach it. Workflow-safe (plain data), though no workflow uses it.
 */
import type { LiveEvent, ToolArgsDelta } from './model-delta.js';

/** The default key prefix: `cairn:live:<workflowId>`. */
export const REDIS_LIVE_PREFIX = 'cairn:live:';
/** The entry field that holds the event's JSON. */
export const REDIS_LIVE_FIELD = 'event';

/** The stream key of a workflow's live events. */
export function redisLiveKey(prefix: string, workflowId: string): string {
  return `${prefix}${workflowId}`;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function isToolArgs(v: unknown): v is ToolArgsDelta {
  const t = v as Partial<ToolArgsDelta> | null;
  return typeof t === 'object' && t !== null && isString(t.toolCallId) && isString(t.name) && isString(t.args);
}

/** The live event an entry's JSON holds, or undefined when it is not one (a reader skips it). */
export function parseLiveEntry(json: string): LiveEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const e = value as Record<string, unknown> | null;
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return undefined;
  if (typeof e.at !== 'number' || !isCount(e.turn) || !isString(e.call) || !isCount(e.attempt) || e.attempt < 1)
    return undefined;
  const base = { at: e.at, turn: e.turn, call: e.call, attempt: e.attempt };
  if (e.type === 'model_reset') return { ...base, type: 'model_reset' };
  if (e.type !== 'model_delta' || !isCount(e.seq)) return undefined;
  if (e.text !== undefined && !isString(e.text)) return undefined;
  if (e.toolArgs !== undefined && !(Array.isArray(e.toolArgs) && e.toolArgs.every(isToolArgs))) return undefined;
  const toolArgs = e.toolArgs as ToolArgsDelta[] | undefined;
  return {
    ...base,
    type: 'model_delta',
    seq: e.seq,
    ...(e.text !== undefined && { text: e.text }),
    ...(toolArgs && { toolArgs: toolArgs.map(({ toolCallId, name, args }) => ({ toolCallId, name, args })) }),
  };
}
