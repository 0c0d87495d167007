/**
 * A scripted stand-in for a language model, so the support agent runs with no API key: `npm start`
 * then `npx cairn run support "My order A-1001 came late"` works out of the box. It plays the
 * support agent's part by rule — look the order up (asking for its id when the message has none),
 * refund a late order in full, say what it did. cairn.config.ts and src/worker.ts register it as
 * `scripted:support`; src/agents.ts names it. To use a real model, change the agent's `model`
 * line (e.g. 'openai:gpt-4.1-mini' with OPENAI_API_KEY set) and delete this file and its imports.
 */
import { PerRunScriptedModel, scriptStep, type ScriptContext } from 'cairn-agents/testing';

/** What a worker registers: `scripted:support`. */
export function scriptedModels() {
  // Every turn of a run decides from what the run holds so far; ten turns is more than it needs.
  return {
    scripts: {
      support: new PerRunScriptedModel(
        'support',
        Array.from({ length: 10 }, () => scriptStep.react(nextStep)),
      ),
    },
  };
}

type Message = ScriptContext['messages'][number];
type ToolMessage = Extract<Message, { role: 'tool' }>;
/** What the tools return (src/agents.ts), or Cairn's view of their failure. */
type Seen = { error?: { message?: string }; id?: string; total?: number; daysLate?: number; reference?: string } | null;

function nextStep({ messages }: ScriptContext) {
  const said = messages.flatMap((m) => (m.role === 'user' ? [m.content] : [])).join('\n');
  const orderId = [...said.matchAll(/A-\d+/g)].at(-1)?.[0];
  const last = messages.findLast((m): m is ToolMessage => m.role === 'tool');
  const seen = (last?.content ?? null) as Seen;
  if (!last || (last.name === 'find_order' && seen?.error))
    return scriptStep.call('find_order', orderId ? { orderId } : {});
  if (last.name === 'find_order' && seen?.id) {
    if (!seen.daysLate) return scriptStep.text(`Order ${seen.id} arrived on time, so there is nothing to refund.`);
    return scriptStep.call('issue_refund', {
      orderId: seen.id,
      amount: seen.total ?? 0,
      reason: `${seen.daysLate} days late`,
    });
  }
  if (last.name === 'issue_refund' && seen?.reference)
    return scriptStep.text(`Your order was late, so I refunded it in full (reference ${seen.reference}).`);
  return scriptStep.text(`I could not finish: ${seen?.error?.message ?? 'something went wrong'}`);
}
