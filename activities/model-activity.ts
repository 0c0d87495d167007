/**
 * The model activity: reads the transcript from its own run through a Query (not recorded in
 * history) and asks the configured model. Only the response enters history, so a run's history
 * grows with what each turn produced, not with the whole conversation again.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { AnyTool, ToolSpec } from '../shared/define-tool.js';
import type { ModelOutcome, ModelRequest } from '../shared/model-response.js';
import { TRANSCRIPT_QUERY, type TranscriptMessage, type TranscriptSlice } from '../shared/transcript.js';
import type { ModelClient } from './model/model-client.js';
import { ModelConfigError } from './model/model-errors.js';

export interface ModelActivityOptions {
  readonly client: Client;
  /** Resolves `ModelRequest.model` (e.g. `openai:gpt-4.1-mini`); throws ModelConfigError when it cannot. */
  readonly resolve: (spec: string) => ModelClient;
  /** The worker's tools: a request names the tools of its turn, their specs come from here. */
  readonly tools: readonly AnyTool[];
}

export function createModelActivities({ client, resolve, tools }: ModelActivityOptions) {
  const specs = new Map(tools.map((t) => [t.name, t.spec]));
  const specOf = (name: string): ToolSpec => {
    const spec = specs.get(name);
    if (!spec) throw new ModelConfigError(`The run offers tool "${name}", which this worker does not have; deploy workers and workflows together.`);
    return spec;
  };
  return {
    async callModel(request: ModelRequest): Promise<ModelOutcome> {
      const model = resolve(request.model);
      const tools = request.toolNames.map(specOf);
      const handle = client.workflow.getHandle(request.workflowId, request.runId);
      const messages = await handle.query<TranscriptMessage[], [TranscriptSlice]>(TRANSCRIPT_QUERY, { length: request.transcriptLength });
      return model.generate({
        messages,
        tools,
        toolChoice: request.toolChoice,
        signal: Context.current().cancellationSignal,
        runKey: `${request.workflowId}/${request.firstExecutionRunId}`,
      });
    },
  };
}
