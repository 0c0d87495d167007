/**
 * A run's pending input as an MCP elicitation form, and a person's filled-in form as the run's
 * reply — the same form whichever way it reaches the person: a server-sent `elicitation/create`
 * (MCP 2025-11-25) or an `input_required` result the client answers by retrying (2026-07-28).
 * A question is its fields (an object of primitives) or one text field; a held call is a decision
 * (the allowed ones except `edit`) and a note. A spent budget is not asked (amounts of money): the
 * tool's result says how to decide it. Node-only (client side).
 */
import type { JsonObject, JsonValue } from '../../shared/json/json.js';
import { parseReply, type HeldCall, type PendingInput, type PendingQuestion, type RunReply } from '../a2a/run-input.js';

/** An elicitation form (the params of `elicitation/create` in form mode). */
export interface RunInputForm {
  readonly mode: 'form';
  readonly message: string;
  readonly requestedSchema: JsonObject;
}

/** What the form asks: the question (by id), or the held call (by id and the hash of the arguments shown). */
export type FormSubject = { readonly question: string } | { readonly toolCallId: string; readonly argsHash: string };

/** The form for what the run waits for, or undefined when nothing is asked of a person through a form. */
export function formOf(pending: PendingInput): { form: RunInputForm; subject: FormSubject } | undefined {
  if (pending.question) {
    const { schema } = questionSchema(pending.question);
    return {
      form: { mode: 'form', message: pending.question.question, requestedSchema: schema },
      subject: { question: pending.question.id },
    };
  }
  const held = pending.reviews[0];
  if (!held) return undefined;
  return {
    form: {
      mode: 'form',
      message: reviewMessage(held),
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            title: 'Decision',
            enum: held.allowed.filter((d) => d !== 'edit'),
            description:
              'accept: run it; reject: do not run it; respond: do not run it, give the model the note as its result.',
          },
          note: { type: 'string', title: 'Note', description: 'Why (reject), or the result to give (respond).' },
        },
        required: ['decision'],
      },
    },
    subject: { toolCallId: held.toolCallId, argsHash: held.argsHash },
  };
}

/** Whether the run still waits for what the form asked (not answered meanwhile, elsewhere). */
export function stillAsked(pending: PendingInput | undefined, subject: FormSubject): boolean {
  if (!pending) return false;
  if ('question' in subject) return pending.question?.id === subject.question;
  return pending.reviews.some((r) => r.toolCallId === subject.toolCallId && r.argsHash === subject.argsHash);
}

/** The run's reply from the accepted form's content (checked by the run's own validators when applied). */
export function replyOf(pending: PendingInput, subject: FormSubject, content: Record<string, unknown>): RunReply {
  if ('question' in subject) {
    const flat = pending.question ? questionSchema(pending.question).flat : true;
    return { kind: 'answer', answer: (flat ? content.answer : content) as JsonValue, questionId: subject.question };
  }
  const note = typeof content.note === 'string' && content.note.trim() ? content.note.trim() : undefined;
  const type = content.decision;
  const decision =
    type === 'respond'
      ? { decision: 'respond', content: note ?? '' }
      : type === 'reject'
        ? { decision: 'reject', ...(note && { reason: note }) }
        : { decision: type };
  return parseReply({ ...decision, toolCallId: subject.toolCallId, argsHash: subject.argsHash }, false);
}

function reviewMessage(held: HeldCall): string {
  return `Allow ${held.name} with ${JSON.stringify(held.args)}?${held.description ? ` ${held.description}` : ''}`;
}

/** A flat form for the question: its fields when the schema is an object of primitives, else one text field. */
function questionSchema(question: PendingQuestion): { schema: JsonObject; flat: boolean } {
  const s = question.schema as { type?: unknown; properties?: Record<string, { type?: unknown }>; required?: string[] };
  const primitive = (p: { type?: unknown }) => p && ['string', 'number', 'integer', 'boolean'].includes(String(p.type));
  if (s.type === 'object' && s.properties && Object.values(s.properties).every(primitive))
    return {
      schema: { type: 'object', properties: s.properties as JsonObject, ...(s.required && { required: s.required }) },
      flat: false,
    };
  return {
    schema: {
      type: 'object',
      properties: { answer: { type: 'string', title: 'Answer', description: question.question } },
      required: ['answer'],
    },
    flat: true,
  };
}

/** Whether a client's declared `elicitation` capability takes forms: `form`, or an empty object (the spec's default), in both revisions. */
export function takesForms(elicitation: { form?: unknown; url?: unknown } | undefined): boolean {
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}
