/**
 * CairnClient: start agent runs and get handles to them, over a Temporal Client. The handle
 * (`AgentRunHandle`) reads a run's state, waits until it needs a person, answers its question,
 * decides its reviews, pauses, resumes or cancels it, and watches its steps. Node-only (client
 * side: it loads @temporalio/client, never the worker).
 */
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { PolicyOverrides } from '../shared/agent/agent-policy.js';
import {
  AGENT_MEMO,
  CAIRN_SEARCH_ATTRIBUTES,
  CairnAgentVersion,
  ownerMemo,
  ownerSearchAttributes,
  TENANT_ID,
  TENANT_MEMO,
  untilIdleUpdate,
  type AgentRunInput,
  type AgentRunWorkflow,
  type RunState,
} from '../workflows/contract/index.js';
import { RUN_SUMMARY_MEMO, startedSummary } from '../workflows/contract/run-summary-memo.js';
import type { SearchAttributePair, TypedSearchAttributes } from '@temporalio/common';
import { checkTenantRuns, type MaxRunsPerTenant } from './tenant-runs-limit.js';
import { AgentRunHandle, DEFAULT_READ_DEADLINE_MS } from './agent-run-handle.js';

/** The task queue `cairn dev` and `cairn worker` poll unless told otherwise. */
const DEFAULT_TASK_QUEUE = 'cairn';

export interface CairnClientOptions {
  /** A Temporal client (`new Client({ connection })`, or `connectCairnClient()` makes one from the environment). */
  readonly client: Client;
  /** The task queue your Cairn workers poll. Default `cairn`. */
  readonly taskQueue?: string;
  /** The fairness weight of each tenant's runs (a tenant not named weighs 1). */
  readonly tenantWeights?: Readonly<Record<string, number>>;
  /**
   * The most runs a tenant has in flight (a number for all, or per tenant): a start of a
   * tenant's run past it throws TenantRunsLimitError (`code` `tenant_runs_limit`, `retryAfterMs`).
   * Counted through visibility, so concurrent starts can overshoot by the starts in flight.
   */
  readonly maxRunsPerTenant?: MaxRunsPerTenant;
  /**
   * How long a read with a deadline waits for a run's worker before it reads what Temporal keeps
   * of the run instead, marked `stale` (`run.state({})`, and every read of the HTTP, A2A and MCP
   * servers and `cairn show`). Default 2,000 ms.
   */
  readonly readDeadlineMs?: number;
}

/** Priority keys: a person waits on an interactive run (the HTTP handler's), nobody on a background one. */
export const INTERACTIVE_PRIORITY = 2;
export const BACKGROUND_PRIORITY = 4;

/** A run to start. */
export interface StartRunOptions {
  /** The agent's name, as its defineAgent gave it. */
  readonly agent: string;
  readonly prompt: string;
  /** Overrides the agent's model spec, e.g. `openai:gpt-4.1-mini` or `scripted:<name>`. */
  readonly model?: string;
  /** Overrides of the agent's planner policy for this run. */
  readonly policy?: PolicyOverrides;
  /** Default `cairn-<agent>-<8 hex digits>`. */
  readonly workflowId?: string;
  /** Default: the client's. */
  readonly taskQueue?: string;
  /**
   * Upsert Cairn's search attributes (CairnAgent, CairnPhase). `'auto'` (the default) does when
   * the namespace has them registered: upserting unregistered ones would fail every workflow task.
   */
  readonly searchAttributes?: boolean | 'auto';
  /** Continue as new after this many model turns even if Temporal does not suggest it yet. */
  readonly continueAsNewAfterTurns?: number;
  /** Start the run's workspace from a snapshot, e.g. another run's `result.workspace` (docs/workspaces.md). */
  readonly workspace?: { readonly snapshot: string };
  /**
   * The tenant the run belongs to: kept in its memo (`cairnTenant`), its `CairnTenant` search
   * attribute (when registered) and its state; child runs inherit it. It is the fairness key of
   * the run's workflow and activity tasks (Temporal Priority and Fairness). Letters, digits and
   * `_.@-`, up to 100 characters.
   */
  readonly tenant?: string;
  /** The user who starts the run, where known (`cairnUser` memo, `CairnUser` search attribute). */
  readonly user?: string;
  /**
   * How the run's tasks are dispatched: `fairnessWeight` (the tenant's share against other
   * tenants', default 1) and `priorityKey` (1 first … 5 last; default 3). Default: the client's
   * `tenantWeights` and `interactive` / `background` priority.
   */
  readonly priority?: { readonly fairnessWeight?: number; readonly priorityKey?: number };
  /**
   * More Temporal start options (timeouts, memo, static summary…). `versioningOverride` overrides the
   * versioning of this run alone: `'AUTO_UPGRADE'`, or `{ pinnedTo: { deploymentName, buildId } }`.
   */
  readonly temporal?: Partial<Omit<WorkflowStartOptions<AgentRunWorkflow>, 'args' | 'workflowId' | 'taskQueue'>>;
}

/** Starts agent runs and hands out their handles. */
export class CairnClient {
  readonly temporal: Client;
  readonly taskQueue: string;
  readonly tenantWeights: Readonly<Record<string, number>>;
  readonly maxRunsPerTenant: MaxRunsPerTenant | undefined;
  /** How long a read with a deadline waits for a run's worker (`CairnClientOptions.readDeadlineMs`). */
  readonly readDeadlineMs: number;
  #searchAttributes: Promise<ReadonlySet<string>> | undefined;

  constructor(options: CairnClientOptions) {
    this.temporal = options.client;
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.tenantWeights = options.tenantWeights ?? {};
    this.maxRunsPerTenant = options.maxRunsPerTenant;
    this.readDeadlineMs = options.readDeadlineMs ?? DEFAULT_READ_DEADLINE_MS;
  }

  /** A view of this client scoped to `tenant`: it starts runs for the tenant and reaches only the tenant's runs. */
  forTenant(tenant: string, user?: string): TenantRuns {
    return new TenantRuns(this, tenant, user);
  }

  /** Starts a run and returns its handle at once. */
  async start(options: StartRunOptions): Promise<AgentRunHandle> {
    const { workflowId, startOptions } = await this.#startOptions(options);
    await this.#withinTenantLimit(options, workflowId);
    const handle = await this.temporal.workflow.start<AgentRunWorkflow>('agentRun', { ...startOptions, workflowId });
    return new AgentRunHandle(this.temporal, workflowId, handle.firstExecutionRunId, this.#handleOptions());
  }

  /**
   * Starts a run and waits, in the same call (update-with-start), until it first needs a person,
   * is paused, or has finished: the first thing to show someone. A run that hands over
   * (continue-as-new) before that is asked again.
   */
  async startUntilIdle(options: StartRunOptions): Promise<{ readonly run: AgentRunHandle; readonly state: RunState }> {
    const { workflowId, startOptions } = await this.#startOptions(options);
    await this.#withinTenantLimit(options, workflowId);
    const operation = new WithStartWorkflowOperation<AgentRunWorkflow>('agentRun', {
      ...startOptions,
      workflowId,
      workflowIdConflictPolicy: 'FAIL',
    });
    const update = await this.temporal.workflow.startUpdateWithStart(untilIdleUpdate, {
      startWorkflowOperation: operation,
      waitForStage: 'ACCEPTED',
    });
    // With workflowIdConflictPolicy FAIL, the run the Update reached is the one just started.
    const run = new AgentRunHandle(this.temporal, workflowId, update.workflowRunId, this.#handleOptions());
    const state = await update.result();
    return { run, state: state.continuingAsNew ? await run.untilIdle() : state };
  }

  /** TenantRunsLimitError when the run's tenant is at its `maxRunsPerTenant`. */
  async #withinTenantLimit(options: StartRunOptions, workflowId: string): Promise<void> {
    if (options.tenant !== undefined && this.maxRunsPerTenant !== undefined)
      await checkTenantRuns(this.temporal, this.maxRunsPerTenant, options.tenant, workflowId);
  }

  /** Closes the Temporal connection this client uses (when nothing else shares it). */
  close(): Promise<void> {
    return this.temporal.connection.close();
  }

  /** The handle of an existing run (the latest in its continue-as-new chain). */
  run(workflowId: string): AgentRunHandle {
    return new AgentRunHandle(this.temporal, workflowId, undefined, this.#handleOptions());
  }

  #handleOptions(): { readonly readDeadlineMs: number } {
    return { readDeadlineMs: this.readDeadlineMs };
  }

  async #startOptions(options: StartRunOptions) {
    const workflowId = options.workflowId ?? `cairn-${options.agent}-${randomUUID().slice(0, 8)}`;
    const wanted = options.searchAttributes ?? 'auto';
    const input: AgentRunInput = {
      agent: options.agent,
      prompt: options.prompt,
      ...(options.model !== undefined && { model: options.model }),
      ...(options.policy !== undefined && { policy: options.policy }),
      ...(options.continueAsNewAfterTurns !== undefined && {
        continueAsNewAfterTurns: options.continueAsNewAfterTurns,
      }),
      ...(options.tenant !== undefined && { tenant: options.tenant }),
      ...(options.user !== undefined && { user: options.user }),
      ...(options.workspace !== undefined && { workspace: options.workspace }),
      searchAttributes: wanted === 'auto' ? await this.hasSearchAttributes() : wanted,
    };
    const withVersion: AgentRunInput =
      input.searchAttributes && (await this.#registered()).has(CairnAgentVersion.name)
        ? { ...input, agentVersionAttribute: true }
        : input;
    if (options.tenant !== undefined && !TENANT_ID.test(options.tenant))
      throw new TypeError(
        `Invalid tenant "${options.tenant}": letters, digits and _.@- (up to 100), starting with a letter or digit.`,
      );
    const owned = options.tenant !== undefined || options.user !== undefined;
    const startOptions = {
      staticSummary: `${options.agent}: ${options.prompt}`.slice(0, 200),
      ...options.temporal,
      // The agent, readable before the run reads its input: its versioning (pinned or auto-upgrade) needs it.
      // Its request too, for lists of runs (the runs page) before the run publishes its own summary.
      memo: {
        ...options.temporal?.memo,
        [AGENT_MEMO]: options.agent,
        [RUN_SUMMARY_MEMO]: startedSummary(options.prompt),
        ...ownerMemo(options),
      },
      ...(owned &&
        input.searchAttributes && {
          typedSearchAttributes: [
            ...searchAttributePairs(options.temporal?.typedSearchAttributes),
            ...ownerSearchAttributes(options),
          ],
        }),
      // The tenant is the fairness key of the run's tasks; its activities and child runs inherit the priority.
      ...((options.tenant !== undefined ||
        options.priority?.priorityKey !== undefined ||
        options.temporal?.priority) && {
        priority: {
          ...(options.tenant !== undefined && {
            fairnessKey: options.tenant,
            fairnessWeight: options.priority?.fairnessWeight ?? this.tenantWeights[options.tenant] ?? 1,
          }),
          ...(options.priority?.priorityKey !== undefined && { priorityKey: options.priority.priorityKey }),
          ...options.temporal?.priority,
        },
      }),
      taskQueue: options.taskQueue ?? this.taskQueue,
      args: [withVersion] as [AgentRunInput],
    };
    return { workflowId, startOptions };
  }

  /**
   * True when the namespace has Cairn's search attributes registered (CairnAgent, CairnPhase,
   * CairnTenant, CairnUser), so runs can be listed by agent, phase and tenant. Asked once per
   * client; a namespace whose attributes cannot be listed counts as without them.
   * `searchAttributesHint` says how to register them.
   */
  async hasSearchAttributes(): Promise<boolean> {
    return (await this.missingSearchAttributes()).length === 0;
  }

  /** The names of Cairn's search attributes the namespace lacks (all of them when it cannot tell). */
  async missingSearchAttributes(): Promise<readonly string[]> {
    const registered = await this.#registered();
    return CAIRN_SEARCH_ATTRIBUTES.filter((key) => !registered.has(key.name)).map((key) => key.name);
  }

  /** The namespace's custom search attributes, asked once per client (none when it cannot tell). */
  #registered(): Promise<ReadonlySet<string>> {
    this.#searchAttributes ??= this.temporal.connection.operatorService
      .listSearchAttributes({ namespace: this.temporal.options.namespace })
      .then(({ customAttributes }) => new Set(Object.keys(customAttributes ?? {})))
      .catch(() => new Set<string>());
    return this.#searchAttributes;
  }
}

/**
 * What to run so that a namespace lists runs by agent, phase and tenant (the Temporal CLI;
 * Temporal Cloud: tcld or its UI), naming the attributes it lacks (default: all of Cairn's).
 */
export function searchAttributesHint(
  namespace: string,
  missing: readonly string[] = CAIRN_SEARCH_ATTRIBUTES.map((key) => key.name),
): string {
  const create = missing
    .map((name) => `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type Keyword`)
    .join(' && ');
  return `Namespace "${namespace}" lacks Cairn's search attribute(s) ${missing.join(', ')}: runs start without them, so they cannot be listed by agent, phase or tenant, and the inbox cannot find the runs waiting on a person (they run all the same). Register them once: ${create}`;
}

function searchAttributePairs(given: SearchAttributePair[] | TypedSearchAttributes | undefined): SearchAttributePair[] {
  if (!given) return [];
  return Array.isArray(given) ? given : given.getAll();
}

/** A run that is not the tenant's, or none: the same error either way, so nothing leaks. */
export class UnknownRunError extends Error {
  override readonly name = 'UnknownRunError';
  readonly code = 'unknown_run';
  constructor(readonly workflowId: string) {
    super(`No run with id "${workflowId}".`);
  }
}

/** The tenant a run belongs to (its memo), or undefined for a run of no tenant; throws Temporal's not-found error for no run. */
export async function tenantOf(client: Client, workflowId: string): Promise<string | undefined> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const tenant = description.memo?.[TENANT_MEMO];
  return typeof tenant === 'string' ? tenant : undefined;
}

/** `client.forTenant(tenant)`: starts runs for one tenant and reaches only its runs. */
export class TenantRuns {
  constructor(
    readonly client: CairnClient,
    readonly tenant: string,
    readonly user?: string,
  ) {}

  start(options: Omit<StartRunOptions, 'tenant'>): Promise<AgentRunHandle> {
    return this.client.start({ ...(this.user !== undefined && { user: this.user }), ...options, tenant: this.tenant });
  }

  startUntilIdle(
    options: Omit<StartRunOptions, 'tenant'>,
  ): Promise<{ readonly run: AgentRunHandle; readonly state: RunState }> {
    return this.client.startUntilIdle({
      ...(this.user !== undefined && { user: this.user }),
      ...options,
      tenant: this.tenant,
    });
  }

  /** The tenant's run; `UnknownRunError` for another tenant's run and for none alike. */
  async run(workflowId: string): Promise<AgentRunHandle> {
    const owner = await tenantOf(this.client.temporal, workflowId).catch((error: Error) => {
      if (error.name === 'WorkflowNotFoundError') return null;
      throw error;
    });
    if (owner !== this.tenant) throw new UnknownRunError(workflowId);
    return this.client.run(workflowId);
  }
}
