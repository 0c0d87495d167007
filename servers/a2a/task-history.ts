/**
 * A task's history as the A2A exchange happened: the caller's request, what the agent said, each
 * time it asked for input (its question, the calls it held for review, as the data part the
 * status message carried), each reply (an answer, a decision, a message) and the final answer.
 * Read from the run's own event log (one Query per page, each within the client's read deadline),
 * not from the model's transcript, which holds neither the input-required turns nor the caller's
 * decisions. Without the worker's answer (a state read `stale`, or a page not answered in time), the
 * history is what Temporal keeps: the request that started the run and, once it completed, its
 * answer. Node-only (client side).
 */
import { Role, type Message, type Part } from '@a2a-js/sdk';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { JsonObject, JsonValue } from '../../shared/json/json.js';
import { visibleText } from '../../shared/model/think-block.js';
import { decodeJsonItem } from '../../shared/stream-wire.js';
import type { RunEvent, RunState } from '../../workflows/contract/index.js';
import { agentMessage, dataPart, INPUT_REQUIRED_MEDIA_TYPE, textPart } from './a2a-task.js';

const TOPICS = ['run_started', 'model_turn', 'question', 'review', 'human', 'finish'] as const;
/** A page's deadline, in read deadlines, once the worker answered for the run's state. */
const PAGE_DEADLINES = 5;

/** The newest `length` messages of the run's A2A exchange; `state`: the run's, as just read. */
export async function taskHistory(
  run: AgentRunHandle,
  contextId: string,
  length: number,
  state?: RunState,
): Promise<Message[]> {
  if (state?.stale) return (await keptHistory(run, contextId)).slice(-length);
  // The worker just answered for the state: it is there, if busy; a page has longer than a first read.
  const deadlineMs = state ? run.readDeadlineMs * PAGE_DEADLINES : run.readDeadlineMs;
  const messages: Message[] = [];
  let lastAgentText: string | undefined;
  const say = (offset: number, role: Role, parts: Part[]) =>
    messages.push({
      ...agentMessage(run.workflowId, contextId, parts),
      messageId: `${run.workflowId}/${offset}`,
      role,
    });
  for (let from = 0; ; ) {
    const page = await run.readStream({ topics: [...TOPICS], from_offset: from }, { deadlineMs });
    if (page.stale) return (await keptHistory(run, contextId)).slice(-length);
    for (const item of page.items) {
      const event = decodeJsonItem(item.data) as RunEvent | undefined;
      if (!event || typeof event !== 'object') continue;
      switch (event.type) {
        case 'run_started':
          say(item.offset, Role.ROLE_USER, [textPart(event.prompt)]);
          break;
        case 'model_turn': {
          const text = event.text ? visibleText(event.text) : '';
          if (text) say(item.offset, Role.ROLE_AGENT, [textPart(text)]);
          lastAgentText = text || lastAgentText;
          break;
        }
        case 'question':
          say(item.offset, Role.ROLE_AGENT, [
            textPart(event.clarification.question),
            dataPart(
              { kind: 'cairn.input-required', question: event.clarification as unknown as JsonObject },
              INPUT_REQUIRED_MEDIA_TYPE,
            ),
          ]);
          break;
        case 'review':
          say(item.offset, Role.ROLE_AGENT, [
            textPart(`Held for review: ${event.reviews.map((r) => `${r.name} (${r.toolCallId})`).join(', ')}.`),
            dataPart(
              { kind: 'cairn.input-required', reviews: event.reviews as unknown as JsonValue[] },
              INPUT_REQUIRED_MEDIA_TYPE,
            ),
          ]);
          break;
        case 'human':
          say(item.offset, Role.ROLE_USER, [humanPart(event.kind, event.id, event.detail)]);
          break;
        case 'finish':
          if (event.answer && event.answer !== lastAgentText)
            say(item.offset, Role.ROLE_AGENT, [textPart(event.answer)]);
          break;
      }
    }
    if (!page.more_ready) break;
    from = page.next_offset;
  }
  return messages.slice(-length);
}

/** The exchange as far as Temporal keeps it without the run's worker: the request, then the answer once completed. */
async function keptHistory(run: AgentRunHandle, contextId: string): Promise<Message[]> {
  const record = await run.record();
  const message = (id: string, role: Role, text: string): Message => ({
    ...agentMessage(run.workflowId, contextId, [textPart(text)]),
    messageId: `${run.workflowId}/${id}`,
    role,
  });
  const messages: Message[] = [];
  const prompt = record.input?.prompt;
  if (prompt !== undefined) messages.push(message('0', Role.ROLE_USER, prompt));
  const answer = record.result?.answer;
  if (answer) messages.push(message('answer', Role.ROLE_AGENT, answer));
  return messages;
}

/** A person's reply as the caller sent it: a message as text, an answer or a decision as data. */
function humanPart(kind: string, id: string, detail: JsonValue): Part {
  if (kind === 'message' && typeof detail === 'string') return textPart(detail);
  if (kind === 'answer') return dataPart({ answer: detail, questionId: id });
  if (kind === 'review') return dataPart({ decision: detail, toolCallId: id });
  return dataPart({ [kind]: detail });
}
