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
import { activityInfo, Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { AnyTool, ToolSpec } from '../shared/tools/define-tool.js';
import type { ModelOutcome, ModelRequest, RunModelRequest } from '../shared/model/model-response.js';
import { TranscriptReader } from './transcript-reader.js';
import type { ModelClient } from './model/model-client.js';
import { ModelConfigError, ModelNetworkError, ModelServerError } from './model/model-errors.js';
import { checkModelOutcome, type ModelOutcomeLimits } from '../shared/model/model-outcome-check.js';
import { cancellation, withHeartbeats } from './heartbeat.js';
import type { DeltaTransport } from './live/delta-transport.js';
import { durableTransport } from './live/durable-transport.js';
import type { FlowControl } from './model/flow-control.js';
import { LearnedPace } from './model/learned-pace.js';
import { pause, PermitWait } from './model/permit-wait.js';
import { spentText, type TenantAdmission, type TenantBudgets } from './model/tenant-budgets.js';
import { costOf, priceOf, type CallUsage, type ModelPrice } from '../shared/model/model-usage.js';
import { toolError } from '../shared/failures/tool-error.js';

/** How long a held call may wait for its slot in the activity (asking again as it frees) before it waits on a timer. */
const HOLD_HERE_MS = 8_000;

/** Why flow control held a call, in its step's words. */
const HELD_BECAUSE = {
  requests: 'requests limit; first in line',
  queued: 'requests limit; waiting its turn behind calls held before it',
  tokens: 'tokens limit',
  in_flight: 'in-flight limit',
} as const;

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
  /**
   * Live deltas (docs/models.md): `true` streams through the run's own stream (the durable
   * transport), a transport streams through it (e.g. `redisTransport`, no history); off by default. The
   * turn's recorded outcome is the same either way.
   */
  readonly streaming?: boolean | DeltaTransport;
  /** Where transcripts are read and kept (default: a new reader on `client`); the worker also hands it the messages its runs append. */
  readonly transcripts?: TranscriptReader;
  /** Prices per million tokens by model spec, name or prefix: each reply's usage gets its `costUsd` (docs/models.md). */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  /** Fleet-wide limits per provider, checked before a call is sent (flow-control.ts, docs/operations.md). */
  readonly flowControl?: FlowControl;
  /** Token and cost budgets per tenant per day and month, checked before a call is sent (tenant-budgets.ts, docs/operations.md). */
  readonly tenantBudgets?: TenantBudgets;
}

export function createModelActivities({
  client,
  resolve,
  tools,
  findSpec,
  limits,
  heartbeatMs,
  streaming,
  transcripts = new TranscriptReader(client),
  prices,
  flowControl,
  tenantBudgets,
}: ModelActivityOptions) {
  const transport = streaming === true ? durableTransport(client) : streaming || undefined;
  // The worker's own pace per provider prefix, learned from its refusals (learned-pace.ts).
  const paces = new Map<string, LearnedPace>();
  // The last stretch of held calls' waits, here rather than on timers (permit-wait.ts).
  const permits = new PermitWait();
  const paceOf = (spec: string) => {
    const prefix = spec.slice(0, Math.max(0, spec.indexOf(':'))) || spec;
    let pace = paces.get(prefix);
    if (!pace) paces.set(prefix, (pace = new LearnedPace()));
    return pace;
  };
  const specs = new Map(tools.map((t) => [t.name, t.spec]));
  const specOf = async (name: string): Promise<ToolSpec> => {
    const spec = specs.get(name) ?? (await findSpec?.(name));
    if (!spec)
      throw new ModelConfigError(
        `The run offers tool "${name}", which this worker does not have; deploy workers and workflows together.`,
      );
    return spec;
  };
  return {
    async callModel(sent: ModelRequest): Promise<ModelOutcome> {
      const request = ofRun(sent);
      // The RunActivity:callModel span when the worker traces (docs/tracing.md); no-ops otherwise.
      const span = trace.getActiveSpan();
      span?.setAttributes({
        'cairn.model': request.model,
        'cairn.tool_choice': typeof request.toolChoice === 'object' ? request.toolChoice.tool : request.toolChoice,
      });
      const { model, tools } = await configured(request, () => resolve(request.model), specOf);
      const { cancellationSignal: signal, info } = Context.current();
      // The run's tenant has spent a window of its budget: the call is not sent, the planner ends the run (or asks a person).
      const tenantAdmission: TenantAdmission | undefined =
        tenantBudgets && typeof sent.tenant === 'string'
          ? await tenantBudgets.admit(sent.tenant, allowanceOf(sent.tenantAllowance))
          : undefined;
      if (tenantAdmission && !tenantAdmission.go) {
        const spent: ModelOutcome = {
          status: 'error',
          error: toolError(
            'rate_limited',
            `The call to ${request.model} was not sent: ${spentText(tenantAdmission.spent)}.`,
          ),
          failure: 'tenant_budget',
          tenantWindow: tenantAdmission.spent,
        };
        span?.setAttributes(modelSpanAttributes(spent));
        return spent;
      }
      // Checked before the call is sent: a call the provider would refuse waits in the workflow (a timer), holding no slot.
      // The reservation names this model turn of this run, so the slot it was given is its own when it comes back.
      const reservation = `${request.workflowId}:${info.activityId.replace(/:\d+$/, '')}`;
      const pace = paceOf(request.model);
      permits.returned(reservation, Date.now());
      const admit = async () => {
        // The fleet's limits pace a provider they cover; the worker's own pace is for the others (and for Redis down).
        const paced = flowControl?.covers(request.model)
          ? ({ go: true } as const)
          : pace.admit(reservation, Date.now());
        const admission = paced.go ? flowControl && (await flowControl.admit(request.model, reservation)) : undefined;
        const heldMs = !paced.go ? paced.waitMs : admission && !admission.go ? admission.waitMs : undefined;
        return { paced, admission, heldMs };
      };
      let admitted = await admit();
      // The transcript of a call waiting here is read meanwhile, so it is sent the moment its permit comes: a read
      // (a Query) between the permit and the provider would let calls reach it bunched, past its limit.
      let reading: Promise<Awaited<ReturnType<TranscriptReader['read']>>> | undefined;
      // A slot this near is waited here, then asked again: the call keeps its place in the queue, and the first
      // call of the queue's head that is here takes the slot. Bounded.
      const holdUntil = Date.now() + HOLD_HERE_MS;
      while (admitted.heldMs !== undefined && Date.now() < holdUntil && permits.hold(admitted.heldMs)) {
        if (!reading) {
          reading = transcripts.read(request);
          reading.catch(() => {}); // read again below if it failed
        }
        try {
          // Heartbeating: a call may wait here longer than the activity's heartbeat timeout.
          await withHeartbeats(() => pause(admitted.heldMs!, signal));
        } catch {
          throw cancellation(signal);
        } finally {
          permits.done();
        }
        admitted = await admit();
      }
      const { paced, admission, heldMs } = admitted;
      if (heldMs !== undefined) {
        const why = !paced.go
          ? 'the provider refused this worker lately; paced'
          : HELD_BECAUSE[(admission as { why: keyof typeof HELD_BECAUSE }).why];
        const held: ModelOutcome = {
          status: 'error',
          error: toolError(
            'rate_limited',
            `Flow control held the call to ${request.model} back (${why}); next permit in ${heldMs} ms.`,
          ),
          // Back a little before the slot, the rest waited here (permit-wait.ts): a late timer does not leave the provider idle.
          retryAfterMs: permits.backIn(reservation, heldMs, Date.now()),
          failure: 'throttled',
        };
        span?.setAttributes(modelSpanAttributes(held));
        return held;
      }
      let usage: CallUsage | undefined;
      const live = transport?.open({
        workflowId: request.workflowId,
        runId: request.runId,
        call: info.activityId,
        attempt: info.attempt,
      });
      try {
        const outcome: unknown = await withHeartbeats(async () => {
          const messages = await (reading?.catch(() => transcripts.read(request)) ?? transcripts.read(request));
          const runKey = `${request.workflowId}/${request.firstExecutionRunId}`;
          return model.generate({
            messages,
            tools,
            toolChoice: request.toolChoice,
            signal,
            runKey,
            ...(live && { onDelta: (delta) => live.push(delta) }),
          });
        }, heartbeatMs);
        // The deltas reach the stream before the reply does.
        await live?.close();
        const counted = priced(checkModelOutcome(outcome, limits), priceOf(prices, request.model));
        // Near the tenant's window: the reply says so, and the run answers in one wrap-up turn.
        const near = tenantAdmission?.go ? tenantAdmission.near : undefined;
        const checked: ModelOutcome =
          counted.status === 'ok' && near ? { ...counted, tenantWindowNear: near } : counted;
        if (checked.status === 'ok') usage = checked.response?.usage;
        if (checked.status === 'ok') pace.accepted(Date.now());
        else if (checked.failure === 'rate_limited' || checked.failure === 'overloaded')
          pace.refused(Date.now(), checked.retryAfterMs);
        span?.setAttributes(modelSpanAttributes(checked));
        return checked;
      } catch (err) {
        void live?.close();
        // Whatever the provider threw as its request was aborted, the activity was cancelled.
        if (signal.aborted) throw cancellation(signal);
        throw retriedQuietly(err);
      } finally {
        // Tokens used are charged to the provider's minute; the in-flight slot is given back.
        if (admission?.go) void admission.release(usage);
        // The tenant's day and month are charged with what the call used (tokens, and cost when priced), before
        // the reply reaches the run: the run's next call, on any worker, sees it (bounded by the Redis timeout).
        if (tenantAdmission?.go) await tenantAdmission.charge(usage);
      }
    },
  };
}

/**
 * A provider that did not answer (ModelNetworkError) or failed with a 5xx: Temporal retries the
 * call. Each attempt is one warning line (stderr) naming the cause, not the SDK's "Activity failed" with
 * two stack traces (a provider down for 3 minutes once wrote ~1,200 lines): the failure leaves as
 * a benign ApplicationFailure of the same type, which the SDK logs at debug.
 */
function retriedQuietly(err: unknown): unknown {
  if (!ModelNetworkError.isInstance(err) && !ModelServerError.isInstance(err)) return err;
  const info = activityInfo();
  console.warn(
    `cairn: model call ${info.activityId} of ${info.workflowExecution?.workflowId ?? 'a run'} failed (attempt ${info.attempt}): ${err.message.replace(/\s+/g, ' ').slice(0, 300)}; Temporal retries it`,
  );
  return ApplicationFailure.create({
    type: err.name,
    message: err.message,
    category: ApplicationFailureCategory.BENIGN,
  });
}

/** What a configuration failure's details hold: the run's model spec and the settings it lacks. */
export interface ModelConfigDetails {
  readonly model: string;
  /** Environment variables that would fix it (`OPENAI_API_KEY`); empty when no setting would. */
  readonly needs: readonly string[];
}

/**
 * The model client and tool specs of a request. A `ModelConfigError` leaves as a non-retryable
 * ApplicationFailure (type `ModelConfigError`) whose details name what is missing, so the workflow
 * can fail the run saying so (workflows/take-step.ts).
 */
async function configured(
  request: ModelRequest,
  resolve: () => ModelClient,
  specOf: (name: string) => Promise<ToolSpec>,
): Promise<{ model: ModelClient; tools: ToolSpec[] }> {
  try {
    return { model: resolve(), tools: await Promise.all(request.toolNames.map(specOf)) };
  } catch (err) {
    if (!ModelConfigError.isInstance(err)) throw err;
    const details: ModelConfigDetails = { model: request.model, needs: [...err.needs] };
    throw ApplicationFailure.create({
      type: 'ModelConfigError',
      message: err.message,
      nonRetryable: true,
      details: [details],
    });
  }
}

/** A run's allowance past its tenant's spent window, as its request carried it; anything else is none. */
function allowanceOf(value: unknown): { tokens: number; costUsd: number } | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { tokens, costUsd } = value as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  return { tokens: n(tokens), costUsd: n(costUsd) };
}

/** The request with the run it reads named: the ids it sent (runs from before did), else the activity's own run. */
function ofRun(request: ModelRequest): RunModelRequest {
  const own = activityInfo().workflowExecution;
  const workflowId = request.workflowId ?? own?.workflowId;
  const runId = request.runId ?? own?.runId;
  if (!workflowId || !runId)
    throw new ModelConfigError(
      'callModel reads the transcript of the run that calls it: called outside a workflow, the request must name workflowId and runId.',
    );
  return { ...request, workflowId, runId, firstExecutionRunId: request.firstExecutionRunId ?? runId };
}

/** The outcome with its reply's cost, when the worker has a price for the model and the provider reported tokens. */
function priced(outcome: ModelOutcome, price: ModelPrice | undefined): ModelOutcome {
  if (outcome.status !== 'ok' || !outcome.response?.usage || !price) return outcome;
  const costUsd = costOf(price, outcome.response.usage);
  return costUsd === undefined
    ? outcome
    : { status: 'ok', response: { ...outcome.response, usage: { ...outcome.response.usage, costUsd } } };
}

/** What a model call came to, as span attributes. */
function modelSpanAttributes(outcome: ModelOutcome): Attributes {
  if (outcome.status === 'error')
    return {
      'cairn.result.status': 'error',
      'cairn.failure.code': outcome.error.code,
      ...(outcome.failure && { 'cairn.model.failure': outcome.failure }),
      ...(outcome.retryAfterMs !== undefined && { 'cairn.retry.after_ms': outcome.retryAfterMs }),
    };
  const response = outcome.response;
  const usage = response?.usage;
  return {
    'cairn.result.status': 'ok',
    'cairn.tool_calls': response?.toolCalls.length ?? 0,
    ...(response && { 'cairn.finish_reason': response.finishReason }),
    ...(usage?.inputTokens !== undefined && { 'cairn.tokens.input': usage.inputTokens }),
    ...(usage?.outputTokens !== undefined && { 'cairn.tokens.output': usage.outputTokens }),
    ...(usage?.costUsd !== undefined && { 'cairn.cost_usd': usage.costUsd }),
  };
}
