/**
 * Ids unique across a thread's runs. A thread's runs share one workflow id, and each run numbers
 * its tool calls and questions from the start (`1.1`, `q1`): the thread's second run has a `1.1`
 * too. Chat clients keep a whole conversation and take an id they have seen for the same call
 * (AG-UI's TOOL_CALL_*, the AI SDK's tool parts and approval ids), so on the chat surfaces and
 * in the inbox each id carries its run: `<id>@<scope>`, the scope being the run's first execution
 * id, shortened. An id sent back is read against the run it reaches: a bare id is the run's own,
 * one scoped to another run of the thread is stale. REST and the typed client speak the run's own
 * ids, and take scoped ones too. Node-only (client side).
 */
import type { RunEventItem } from '../../client/run-events.js';

/**
 * A run's scope: the last 12 hex digits of its chain's first execution id (`firstRunId`), its
 * random part (the first digits of Temporal's UUIDv7 run ids are a timestamp).
 */
export function runScope(firstRunId: string | undefined): string | undefined {
  const hex = firstRunId?.replace(/-/g, '').slice(-12);
  return hex ? hex : undefined;
}

/** `id` as the thread's clients see it: `<id>@<scope>` (as is when the scope is unknown). */
export function scoped(id: string, scope: string | undefined): string {
  return scope ? `${id}@${scope}` : id;
}

/** What an id sent back names in the run of `scope`: its own id, or `stale` when it names another run's. */
export function unscoped(id: string, scope: string | undefined): { readonly id: string } | 'stale' {
  const at = id.lastIndexOf('@');
  if (at < 0) return { id };
  return scope !== undefined && id.slice(at + 1) === scope ? { id: id.slice(0, at) } : 'stale';
}

/** Whether `id` carries a scope (and so must be read against its run's). */
export const isScoped = (id: string): boolean => id.includes('@');

/** A run event with its call and question ids scoped (the rest as is). */
export function scopeEvent<E extends { readonly type: string }>(event: E, scope: string | undefined): E {
  if (!scope) return event;
  const e = event as unknown as RunEventItem;
  switch (e.type) {
    case 'tool_start':
    case 'tool_end':
      return { ...e, toolCallId: scoped(e.toolCallId, scope) } as unknown as E;
    case 'review':
      return {
        ...e,
        reviews: e.reviews.map((r) => ({ ...r, toolCallId: scoped(r.toolCallId, scope) })),
      } as unknown as E;
    case 'question':
      return { ...e, clarification: { ...e.clarification, id: scoped(e.clarification.id, scope) } } as unknown as E;
    case 'human':
      return e.kind === 'answer' || e.kind === 'review' ? ({ ...e, id: scoped(e.id, scope) } as unknown as E) : event;
    default:
      return event;
  }
}
