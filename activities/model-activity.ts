/**
 * The model activity: reads the transcript from its own run through a Query (not recorded in
 * history; only what is new since the last turn, see transcript-reader.ts) and asks the configured
 * model. Only the response enters history, so a run's history grows with what each turn produced,
 * not with the whole conversation again. What the model client returns is checked at this
 * boundary (`checkModelOutcome`): a reply of the wrong shape or over the size limits becomes a
 * `malformed_model_output` outcome, so garbage never enters history and a 5 MB reply ends the run
 * with an explanation instead of failing it. The activity heartbeats while it waits, and a cancel
 * aborts the provider request. Worker side only.
 */
import { trace, type Attributes } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { AnyTool, ToolSpec } from '../shared/define-tool.js';
import type { ModelOutcome, ModelRequest } from '../shared/model-response.js';
import { TranscriptReader } from './transcript-reader.js';
import type { ModelClient } from './model/model-client.js';
import { ModelConfigError } from './model/model-errors.js';
import { checkModelOutcome, type ModelOutcomeLimits } from '../shared/model-outcome-check.js';
import { cancellation, withHeartbeats } from './heartbeat.js';

export interface ModelActivityOptions {
  readonly client: Client;
  /** Resolves `ModelRequest.model` (e.g. `openai:gpt-4.1-mini`); throws ModelConfigError when it cannot. */
  readonly resolve: (spec: string) => ModelClient;
  /** The worker's tools: a request names the tools of its turn, their specs come from here. */
  readonly tools: readonly AnyTool[];
  /** Specs of tools that are not in `tools`, by name: the worker's MCP tools. */
  readonly findSpec?: (name: string) => Promise<ToolSpec | undefined>;
  /** Bounds on what a model client may return (defaults in shared/size-limits.ts). */
  readonly limits?: Partial<ModelOutcomeLimits>;
  /** How often the activity heartbeats while it waits, in ms (default 1,000). */
  readonly heartbeatMs?: number;
}

export function createModelActivities({ client, resolve, tools, findSpec, limits, heartbeatMs }: ModelActivityOptions) {
  const transcripts = new TranscriptReader(client);
  const specs = new Map(tools.map((t) => [t.name, t.spec]));
  const specOf = async (name: string): Promise<ToolSpec> => {
    const spec = specs.get(name) ?? (await findSpec?.(name));
    if (!spec) throw new ModelConfigError(`The run offers tool "${name}", which this worker does not have; deploy workers and workflows together.`);
    return spec;
  };
  return {
    async callModel(request: ModelRequest): Promise<ModelOutcome> {
      // The RunActivity:callModel span when the worker traces (docs/tracing.md); no-ops otherwise.
      const span = trace.getActiveSpan();
      span?.setAttributes({ 'cairn.model': request.model, 'cairn.tool_choice': typeof request.toolChoice === 'object' ? request.toolChoice.tool : request.toolChoice });
      const model = resolve(request.model);
      const tools = await Promise.all(request.toolNames.map(specOf));
      const signal = Context.current().cancellationSignal;
      try {
        const outcome: unknown = await withHeartbeats(async () => {
          const messages = await transcripts.read(request);
          return model.generate({ messages, tools, toolChoice: request.toolChoice, signal, runKey: `${request.workflowId}/${request.firstExecutionRunId}` });
        }, heartbeatMs);
        const checked = checkModelOutcome(outcome, limits);
        span?.setAttributes(modelSpanAttributes(checked));
        return checked;
      } catch (err) {
        // Whatever the provider threw as its request was aborted, the activity was cancelled.
        if (signal.aborted) throw cancellation(signal);
        throw err;
      }
    },
  };
}

/** What a model call came to, as span attributes. */
function modelSpanAttributes(outcome: ModelOutcome): Attributes {
  if (outcome.status === 'error')
    return { 'cairn.result.status': 'error', 'cairn.failure.code': outcome.error.code, ...(outcome.retryAfterMs !== undefined && { 'cairn.retry.after_ms': outcome.retryAfterMs }) };
  const response = outcome.response;
  const usage = response?.usage;
  return {
    'cairn.result.status': 'ok',
    'cairn.tool_calls': response?.toolCalls.length ?? 0,
    ...(response && { 'cairn.finish_reason': response.finishReason }),
    ...(usage?.inputTokens !== undefined && { 'cairn.tokens.input': usage.inputTokens }),
    ...(usage?.outputTokens !== undefined && { 'cairn.tokens.output': usage.outputTokens }),
  };
}
