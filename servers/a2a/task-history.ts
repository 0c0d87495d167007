/**
 * A task's history as the A2A exchange happened: the caller's request, what the agent said, each
 * time it asked for input (its question, the calls it held for review, as the data part the
 * status message carried), each reply (an answer, a decision, a message) and the final answer.
 * Read from the run's own event log (one Query per page), not from the model's transcript, which
 * holds neither the input-required turns nor the caller's decisions. Node-only (client side).
 */
import { Role, type Message, type Part } from '@a2a-js/sdk';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { JsonObject, JsonValue } from '../../shared/json/json.js';
import { visibleText } from '../../shared/model/think-block.js';
import { decodeJsonItem } from '../../shared/stream-wire.js';
import { streamReadQuery, type RunEvent } from '../../workflows/contract/index.js';
import { agentMessage, dataPart, INPUT_REQUIRED_MEDIA_TYPE, textPart } from './a2a-task.js';

const TOPICS = ['run_started', 'model_turn', 'question', 'review', 'human', 'finish'] as const;

/** The newest `length` messages of the run's A2A exchange. */
export async function taskHistory(run: AgentRunHandle, contextId: string, length: number): Promise<Message[]> {
  const messages: Message[] = [];
  let lastAgentText: string | undefined;
  const say = (offset: number, role: Role, parts: Part[]) =>
    messages.push({
      ...agentMessage(run.workflowId, contextId, parts),
      messageId: `${run.workflowId}/${offset}`,
      role,
    });
  for (let from = 0; ; ) {
    const page = await run.workflow.query(streamReadQuery, { topics: [...TOPICS], from_offset: from });
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

/** A person's reply as the caller sent it: a message as text, an answer or a decision as data. */
function humanPart(kind: string, id: string, detail: JsonValue): Part {
  if (kind === 'message' && typeof detail === 'string') return textPart(detail);
  if (kind === 'answer') return dataPart({ answer: detail, questionId: id });
  if (kind === 'review') return dataPart({ decision: detail, toolCallId: id });
  return dataPart({ [kind]: detail });
}
