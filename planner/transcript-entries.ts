/**
 * What a plan adds to the model's transcript, in order: the model's reply (its text, and its
 * calls as checked), the results of a completed batch in call order (as the model sees them,
 * shared/tools/model-view.ts), then Cairn's notes as one user message. Both drivers record plans this
 * way. Workflow-safe, deterministic.
 */
import { toModelView } from '../shared/tools/model-view.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { Plan } from './plan.js';

export function transcriptEntries(plan: Plan, transcript: readonly TranscriptMessage[]): TranscriptMessage[] {
  const added: TranscriptMessage[] = [];
  if (plan.reply) added.push({ role: 'assistant', content: plan.reply.text, toolCalls: plan.reply.toolCalls });
  // The calls these results answer: this plan's reply, or the last one the model made.
  const asked = plan.reply?.toolCalls ?? lastReply(transcript)?.toolCalls;
  for (const result of plan.record) {
    const call = asked?.find((c) => c.toolCallId === result.toolCallId);
    added.push({
      role: 'tool',
      toolCallId: result.toolCallId,
      ...(call?.providerCallId ? { providerCallId: call.providerCallId } : {}),
      name: result.name,
      content: toModelView(result),
    });
  }
  if (plan.notes.length > 0) added.push({ role: 'user', content: `[cairn] ${plan.notes.join(' ')}` });
  for (const text of plan.said ?? []) added.push({ role: 'user', content: text });
  return added;
}

function lastReply(
  transcript: readonly TranscriptMessage[],
): Extract<TranscriptMessage, { role: 'assistant' }> | undefined {
  return transcript.findLast((m): m is Extract<TranscriptMessage, { role: 'assistant' }> => m.role === 'assistant');
}
