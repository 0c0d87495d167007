/**
 * The model activity: reads the transcript from its own run through a Query (not recorded in
 * history) and asks the configured model. Only the response enters history, so a run's history
 * grows with what each turn produced, not with the whole conversation again.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { ModelOutcome, ModelRequest } from '../shared/model-response.js';
import { TRANSCRIPT_QUERY, type TranscriptMessage, type TranscriptSlice } from '../shared/transcript.js';
import type { ModelClient } from './model/model-client.js';

export interface ModelActivityOptions {
  readonly client: Client;
  /** Resolves `ModelRequest.model` (e.g. `openai:gpt-4.1-mini`); throws ModelConfigError when it cannot. */
  readonly resolve: (spec: string) => ModelClient;
}

export function createModelActivities({ client, resolve }: ModelActivityOptions) {
  return {
    async callModel(request: ModelRequest): Promise<ModelOutcome> {
      const model = resolve(request.model);
      const handle = client.workflow.getHandle(request.workflowId, request.runId);
      const messages = await handle.query<TranscriptMessage[], [TranscriptSlice]>(TRANSCRIPT_QUERY, { length: request.transcriptLength });
      return model.generate({
        messages,
        tools: request.tools,
        toolChoice: request.toolChoice,
        signal: Context.current().cancellationSignal,
        workflowId: request.workflowId,
      });
    },
  };
}
