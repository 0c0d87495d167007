/**
 * What a plan adds to the model's transcript, in order: the model's reply (its text, and its
 * calls as checked), the results of a completed batch in call order (as the model sees them,
 * shared/model-view.ts), then Cairn's notes as one user message. Both drivers record plans this
 * way. Workflow-safe, deterministic.
 */
import { toModelView } from '../shared/model-view.js';
import type { ToolCall } from '../shared/tool-call.js';
import type { TranscriptMessage } from '../shared/transcript.js';
import type { Plan } from './plan.js';

export function transcriptEntries(plan: Plan, transcript: readonly TranscriptMessage[]): TranscriptMessage[] {
  const added: TranscriptMessage[] = [];
  if (plan.reply) added.push({ role: 'assistant', content: plan.reply.text, toolCalls: plan.reply.toolCalls });
  if (plan.record.length > 0) {
    // The calls these results answer: this plan's reply, or the last one the model made.
    const asked = plan.reply?.toolCalls ?? lastCalls(transcript);
    for (const result of plan.record) {
      const call = asked.find((c) => c.toolCallId === result.toolCallId);
      added.push({
        role: 'tool',
        toolCallId: result.toolCallId,
        ...(call?.providerCallId ? { providerCallId: call.providerCallId } : {}),
        name: result.name,
        content: toModelView(result),
      });
    }
  }
  if (plan.notes.length > 0) added.push({ role: 'user', content: `[cairn] ${plan.notes.join(' ')}` });
  return added;
}

function lastCalls(transcript: readonly TranscriptMessage[]): readonly ToolCall[] {
  const last = transcript.findLast((m) => m.role === 'assistant');
  return last?.role === 'assistant' ? last.toolCalls : [];
}
