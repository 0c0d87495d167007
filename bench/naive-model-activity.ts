/**
 * The naive model activity, issue #5's baseline: the whole transcript is the activity's input,
 * so every turn writes the conversation so far into history again. Cairn's own model activity
 * (activities/model-activity.ts) reads the transcript through a Query instead. Bench-only,
 * worker side; safe to retry (a scripted model answers from its script).
 */
import { Context } from '@temporalio/activity';
import type { ModelClient } from '../activities/model/model-client.js';
import type { ModelOutcome, ToolChoice } from '../shared/model/model-response.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import { benchAgent } from './bench-agent.js';

/** A model request that carries the transcript itself (tools by name, as Cairn's does: only the transcript differs). */
export interface NaiveModelRequest {
  readonly messages: readonly TranscriptMessage[];
  readonly toolNames: readonly string[];
  readonly toolChoice: ToolChoice;
  readonly model: string;
}

export function createNaiveModelActivities({ resolve }: { resolve: (spec: string) => ModelClient }) {
  return {
    async callModelWithTranscript({
      messages,
      toolNames,
      toolChoice,
      model,
    }: NaiveModelRequest): Promise<ModelOutcome> {
      const tools = benchAgent.tools.filter((t) => toolNames.includes(t.name)).map((t) => t.spec);
      return resolve(model).generate({ messages, tools, toolChoice, signal: Context.current().cancellationSignal });
    },
  };
}
