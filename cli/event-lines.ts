/**
 * What `cairn watch` says of each event of a run's stream, for people: the planner's decisions,
 * tool errors, questions and reviews with the command that answers them, pauses, hand-overs and
 * the answer. Model turns, tool starts and successes are left to `--json`. Pure. Node-only.
 */
import type { RunEventItem } from '../client/run-events.js';
import type { JsonValue } from '../shared/json/json.js';
import { compact, formatQuestion, formatReview, formatStep } from './format.js';

export function eventLines(workflowId: string, event: RunEventItem): string[] {
  const at = `[turn ${event.turn}]`;
  switch (event.type) {
    case 'decision':
      return [formatStep(event)];
    case 'tool_end': {
      const result = event.result as { status?: string; error?: { code: string; message: string }; feedback?: string };
      if (result.status === 'error' && result.error)
        return [`${at} error ${event.name} [${event.toolCallId}] ${result.error.code}: ${result.error.message}`];
      if (result.status === 'validator_failed')
        return [`${at} error ${event.name} [${event.toolCallId}] validator_failed: ${result.feedback ?? ''}`];
      return [];
    }
    // How to answer is said by `watch` only while the run still waits on it (a past question, or a
    // closed run's, has nothing to answer).
    case 'question':
      return prefix(at, formatQuestion(workflowId, event.clarification, false));
    case 'review':
      return event.reviews.flatMap((r) => prefix(at, formatReview(workflowId, r, false)));
    case 'human':
      if (event.kind === 'message')
        return [
          `${at} said (${event.id}): ${typeof event.detail === 'string' ? event.detail : JSON.stringify(event.detail)}`,
        ];
      return [
        `${at} ${event.kind === 'answer' ? `answered ${event.id}` : event.kind === 'review' ? `decided ${event.id}: ${decisionText(event.detail)}` : event.kind === 'budget' ? `decided budget ${event.id}: ${compact(event.detail, 160)}` : event.kind === 'pause' ? 'paused' : event.kind === 'resume' ? 'resumed' : 'cancelled'}`,
      ];
    case 'hand_over':
      return [
        `${at} continued as new (generation ${event.generation})${event.upgradeTo ? `, moving to build ${event.upgradeTo}` : ''}`,
      ];
    case 'agent_changed':
      return [
        `${at} now runs agent version ${event.to} (was ${event.from})${event.buildId ? ` on build ${event.buildId}` : ''}`,
      ];
    case 'finish':
      return [`${at} done: ${event.answer || '(no answer)'}`];
    default:
      return [];
  }
}

const DECIDED = { accept: 'accepted', edit: 'edited', respond: 'answered instead of running it', reject: 'rejected' };

/** A review decision as a person reads it: what was decided, and what it carried (a long one's event keeps a preview). */
export function decisionText(detail: JsonValue): string {
  const decision = (detail ?? {}) as { type?: unknown; args?: unknown; content?: unknown; reason?: unknown };
  switch (decision.type) {
    case 'accept':
      return DECIDED.accept;
    case 'edit':
      return `${DECIDED.edit}, run with ${compact(decision.args, 160)}`;
    case 'respond':
      return `${DECIDED.respond}: ${compact(decision.content, 160)}`;
    case 'reject':
      return typeof decision.reason === 'string' && decision.reason
        ? `${DECIDED.reject}: ${compact(decision.reason, 160)}`
        : DECIDED.reject;
    default: {
      // A long decision's preview (`{ preview, chars }`): its type is what it starts with.
      const type = /^\{"type":"(\w+)"/.exec(String((detail as { preview?: unknown } | null)?.preview))?.[1];
      return type && type in DECIDED ? DECIDED[type as keyof typeof DECIDED] : compact(detail, 160);
    }
  }
}

function prefix(at: string, [first = '', ...rest]: readonly string[]): string[] {
  return [`${at} ${first}`, ...rest];
}
