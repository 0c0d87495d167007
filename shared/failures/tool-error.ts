/**
 * ToolError: what failed, as plain JSON data with a stable `code`, a `kind` and a cause chain.
 * It never relies on class identity, so it survives the activity boundary and history unchanged.
 * Workflow-safe, deterministic.
 */
import { FAILURES, FailureKind, isToolErrorCode, type ToolErrorCode } from './failure-taxonomy.js';
import { codeOfFailureType } from './failure-type.js';
import { MAX_TEXT_LENGTH, renderValue, truncateText } from '../json/bounded-text.js';

/** One link of a failure chain. Every link has a non-empty message; chains are finite and acyclic. */
export interface ToolError {
  readonly code: ToolErrorCode;
  readonly kind: FailureKind;
  readonly message: string;
  /** The error's original name or failure type, when it came from a thrown error. */
  readonly name?: string;
  readonly cause?: ToolError;
}

/** How many links a chain keeps; deeper chains end with a link that says how many were cut. */
export const MAX_CAUSE_DEPTH = 8;

/** A new ToolError for `code`, optionally caused by another. */
export function toolError(code: ToolErrorCode, message: string, cause?: ToolError): ToolError {
  const link: ToolError = { code, kind: FAILURES[code].kind, message: message.trim() || code };
  return cause === undefined ? link : { ...link, cause: truncateChain(cause, MAX_CAUSE_DEPTH - 1) };
}

/** The chain's links, outermost first. */
export function errorChain(error: ToolError): ToolError[] {
  const links: ToolError[] = [];
  for (let link: ToolError | undefined = error; link; link = link.cause) links.push(link);
  return links;
}

/** Keep at most `depth` links; the last kept link records how many were cut. */
export function truncateChain(error: ToolError, depth: number): ToolError {
  const links = errorChain(error);
  if (links.length <= depth) return error;
  const kept = links.slice(0, Math.max(1, depth));
  const cut = links.length - kept.length;
  let rebuilt: ToolError = {
    ...withoutCause(kept[kept.length - 1]!),
    cause: { code: 'internal_error', kind: 'internal', message: `… ${cut} more cause(s) cut` },
  };
  for (let i = kept.length - 2; i >= 0; i--) rebuilt = { ...withoutCause(kept[i]!), cause: rebuilt };
  return rebuilt;
}

function withoutCause(link: ToolError): ToolError {
  const { cause: _cause, ...rest } = link;
  return rest;
}

/** True when `value` is a valid ToolError chain: plain data, known codes and kinds, non-empty messages, no cycles. */
export function isToolError(value: unknown): value is ToolError {
  try {
    return isChain(value);
  } catch {
    return false; // a throwing getter or proxy is not data
  }
}

function isChain(value: unknown): boolean {
  const seen = new Set<unknown>();
  for (let link: unknown = value; ; ) {
    if (!isPlainObject(link) || seen.has(link)) return false;
    seen.add(link);
    const fields = link;
    if (!Object.keys(fields).every((key) => LINK_KEYS.has(key) && fields[key] !== undefined)) return false;
    if (!isToolErrorCode(link.code) || !FAILURE_KINDS.has(link.kind)) return false;
    if (typeof link.message !== 'string' || link.message.length === 0) return false;
    if ('name' in link && typeof link.name !== 'string') return false;
    if (!('cause' in link)) return true;
    link = link.cause;
  }
}

const LINK_KEYS = new Set(['code', 'kind', 'message', 'name', 'cause']);
const FAILURE_KINDS = new Set<unknown>(Object.values(FailureKind));

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  // Any realm's Object.prototype (the workflow sandbox has its own), or none.
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/**
 * Any thrown value as a ToolError chain, outermost first. Follows `Error.cause`, summarises an
 * `AggregateError`'s `errors` and chains the first, describes non-Error throws, and reads Temporal
 * failures by shape (`name`, `type`, `timeoutType`, `details`, `cause`), never by class.
 * The code: `timeout` if a TimeoutFailure is anywhere in the chain; else the code of the first
 * ApplicationFailure whose `type` is a Cairn code; else `code`. Cycles end the chain; more than
 * MAX_CAUSE_DEPTH links end with a marker link. The result survives a JSON round trip unchanged.
 */
export function fromError(err: unknown, code: ToolErrorCode = 'internal_error'): ToolError {
  const seen = new Set<unknown>();
  const links: Described[] = [];
  let current: unknown = err;
  while (links.length < MAX_CAUSE_DEPTH) {
    if (isToolError(current)) {
      const chain = errorChain(current);
      const room = MAX_CAUSE_DEPTH - links.length;
      for (const link of chain.slice(0, room))
        links.push({ ready: { ...withoutCause(link), message: bounded(link.message) || link.code } });
      current = chain[room];
      break;
    }
    const described = describe(current);
    links.push(described);
    seen.add(current);
    current = described.next;
    if (current === undefined || current === null || seen.has(current)) {
      current = undefined;
      break;
    }
  }
  const cut = countRest(current, seen);
  const ownCodes = links.map((link) => link.ready?.code ?? link.code);
  const top = ownCodes.includes('timeout') ? 'timeout' : (ownCodes.find((own) => own !== undefined) ?? code);
  let chain: ToolError | undefined =
    cut > 0 ? { code: 'internal_error', kind: 'internal', message: `… ${cut} more cause(s) cut` } : undefined;
  for (let i = links.length - 1; i >= 0; i--) {
    const link = links[i]!;
    const own: ToolError = link.ready ?? {
      code: i === 0 ? top : (link.code ?? top),
      kind: FAILURES[i === 0 ? top : (link.code ?? top)].kind,
      message: link.message ?? 'unknown error',
      ...(link.name ? { name: link.name } : {}),
    };
    chain = chain === undefined ? own : { ...own, cause: chain };
  }
  return chain!;
}

interface Described {
  readonly message?: string;
  readonly name?: string;
  /** The link's own code: a TimeoutFailure, or an ApplicationFailure typed with a Cairn code. */
  readonly code?: ToolErrorCode;
  readonly next?: unknown;
  /** A link taken over unchanged from an embedded ToolError. */
  readonly ready?: ToolError;
}

function describe(value: unknown): Described {
  if (typeof value === 'string') return { message: bounded(value) || 'an empty string was thrown' };
  if (typeof value !== 'object' || value === null) return { message: `${renderValue(value)} was thrown` };
  const name = text(read(value, 'name'));
  let message = text(read(value, 'message'));
  let next = read(value, 'cause');
  let own: ToolErrorCode | undefined;
  let shownName = name;
  const type = text(read(value, 'type'));
  const timeoutType = text(read(value, 'timeoutType'));
  if (name === 'TimeoutFailure' || timeoutType) {
    own = 'timeout';
    if (timeoutType && !message.includes(timeoutType)) message = `${message || 'timed out'} (${timeoutType})`;
  } else if (name === 'ApplicationFailure') {
    own = codeOfFailureType(type);
    if (type) shownName = type;
    const details = read(value, 'details');
    if (next == null && Array.isArray(details) && isToolError(details[0])) next = details[0];
  } else if (name === 'ActivityFailure') {
    const facts = [text(read(value, 'activityType')), text(read(value, 'retryState'))].filter(Boolean);
    if (facts.length > 0) message = `${message || 'activity failed'} (${facts.join(', ')})`;
  }
  const errors = read(value, 'errors');
  if (Array.isArray(errors)) {
    const shown = errors.slice(0, 5).map((inner) => bounded(messageOf(inner), 200));
    const more = errors.length > 5 ? `; … ${errors.length - 5} more` : '';
    message = `${message || 'several errors'} (${errors.length} error(s): ${shown.join('; ')}${more})`;
    if (next == null) next = errors[0];
  }
  if (!message && !(value instanceof Error) && !name) message = `non-error object thrown: ${renderValue(value, 500)}`;
  return {
    message: bounded(message) || name || 'an error without a message',
    name: shownName || undefined,
    code: own,
    next,
  };
}

/** How many links follow `current` (0 if none); stops at cycles and after 1,000. */
function countRest(current: unknown, seen: Set<unknown>): number {
  let count = 0;
  while (current !== undefined && current !== null && !seen.has(current) && count < 1_000) {
    if (isToolError(current)) return count + errorChain(current).length;
    seen.add(current);
    count++;
    current = describe(current).next;
  }
  return count;
}

function messageOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const message = typeof value === 'object' && value !== null ? text(read(value, 'message')) : '';
  return message || renderValue(value);
}

/** A property read that survives throwing getters and proxies. */
function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function bounded(message: string, max = MAX_TEXT_LENGTH): string {
  return truncateText(message.trim(), max);
}
