/**
 * Agent tools as child runs: a call starts the other agent as a child workflow of the same type
 * (its own history, linked in the Temporal UI), and the child's answer becomes the call's
 * ToolResult, with `runLink` and `childrenCount`. While a child waits for a person, it tells its
 * parent (childStatusSignal); the parent shows the child's question and reviews as its own, with
 * ids prefixed by its tool call (`2.1/q1`), and forwards answers and decisions to the child. A
 * cancel of the parent is forwarded, so children finish gracefully. Workflow code (sandbox).
 */
import { AGENT_MEMO, ownerMemo, ownerSearchAttributes } from './contract/search-attributes.js';
import { getExternalWorkflowHandle, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
import { resultAfterRetries } from '../shared/failures/after-retries.js';
import type { Agent } from '../shared/agent/define-agent.js';
import type { JsonValue } from '../shared/json/json.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import { errorChain, fromError, toolError, type ToolError } from '../shared/failures/tool-error.js';
import { errorResult, type ToolResult } from '../shared/tools/tool-result.js';
import type { ErrorSummary, PendingClarification, PendingReview, PlannerState } from '../planner/index.js';
import { accepted, HumanInputError } from './human-input.js';
import { checkAnswer } from '../shared/human-input/answer.js';
import {
  answerClarificationSignal,
  cancelSignal,
  reviewToolCallSignal,
  type ClarificationAnswer,
  type ReviewInput,
} from './contract/human-messages.js';
import { childStatusSignal, type ChildLink, type ChildStatus } from './contract/run-state.js';
import type { AgentRunInput, AgentRunResult } from './contract/agent-run.js';

/** Agent tools calling agent tools stop here: a deeper call is refused. */
export const MAX_AGENT_DEPTH = 4;

interface Child {
  readonly link: ChildLink;
  status: ChildStatus | null;
}

export class ChildRuns {
  readonly #children = new Map<string, Child>();

  /** Listens to children's status; `waiting` hears each. A status from a run this one did not start is ignored. */
  install(waiting: (link: ChildLink, status: ChildStatus) => void = () => {}): void {
    setHandler(childStatusSignal, (status: ChildStatus) => {
      const child = status && typeof status === 'object' ? this.#children.get(String(status.workflowId)) : undefined;
      if (!child) return;
      child.status = {
        ...status,
        clarification: status.clarification ?? null,
        reviews: Array.isArray(status.reviews) ? status.reviews : [],
      };
      waiting(child.link, child.status);
    });
  }

  get links(): ChildLink[] {
    return [...this.#children.values()].map((c) => c.link);
  }

  /** The first question a child waits on, its id prefixed with the parent's tool call. */
  clarification(): (PendingClarification & { child: ChildLink }) | null {
    for (const { link, status } of this.#children.values())
      if (status?.clarification)
        return { ...status.clarification, id: `${link.toolCallId}/${status.clarification.id}`, child: link };
    return null;
  }

  /** Every review a child waits on, tool call ids prefixed with the parent's tool call. */
  reviews(): (PendingReview & { child: ChildLink })[] {
    return [...this.#children.values()].flatMap(({ link, status }) =>
      (status?.reviews ?? []).map((r) => ({ ...r, toolCallId: `${link.toolCallId}/${r.toolCallId}`, child: link })),
    );
  }

  /** True when a child waits for a person. */
  waiting(): boolean {
    return [...this.#children.values()].some(({ status }) => status?.clarification || status?.reviews.length);
  }

  /** The child an id prefixed `<toolCallId>/` belongs to, and the id within it; undefined when the id is not a child's. */
  route(id: unknown): { child: Child; id: string } | undefined {
    if (typeof id !== 'string') return undefined;
    const slash = id.indexOf('/');
    if (slash < 0) return undefined;
    const child = [...this.#children.values()].find((c) => c.link.toolCallId === id.slice(0, slash));
    return child && { child, id: id.slice(slash + 1) };
  }

  /** Checks an answer meant for a child; throws HumanInputError as the child would. */
  checkAnswer(to: { child: Child; id: string }, answer: ClarificationAnswer): void {
    accepted(checkAnswer(to.child.status?.clarification ?? null, { id: to.id, answer: answer.answer }));
  }

  /** Sends a checked answer to its child; the parent's copy of the question closes until the child asks again. */
  async forwardAnswer(to: { child: Child; id: string }, answer: JsonValue): Promise<void> {
    if (to.child.status) to.child.status = { ...to.child.status, clarification: null };
    await getExternalWorkflowHandle(to.child.link.workflowId).signal(answerClarificationSignal, { id: to.id, answer });
  }

  /** Checks a decision meant for a child's review (pending, same arguments); the child checks the rest. */
  checkReview(to: { child: Child; id: string }, input: ReviewInput): void {
    const review = to.child.status?.reviews.find((r) => r.toolCallId === to.id);
    if (!review)
      throw new HumanInputError(
        `No review is pending for tool call "${to.child.link.toolCallId}/${to.id}".`,
        'not_pending',
      );
    if (input.argsHash !== review.argsHash)
      throw new HumanInputError(
        `Stale decision: tool call ${input.toolCallId} has arguments ${review.argsHash}, not ${String(input.argsHash)}.`,
        'stale_review',
      );
  }

  async forwardReview(to: { child: Child; id: string }, input: ReviewInput): Promise<void> {
    if (to.child.status)
      to.child.status = { ...to.child.status, reviews: to.child.status.reviews.filter((r) => r.toolCallId !== to.id) };
    await getExternalWorkflowHandle(to.child.link.workflowId).signal(reviewToolCallSignal, {
      ...input,
      toolCallId: to.id,
    });
  }

  /**
   * Runs `agent` as a child for `call` and returns the call's result. `cancelled` resolves when the
   * parent is cancelled, so the child is told to finish.
   */
  async run(
    call: ToolCall,
    agent: Agent,
    input: {
      readonly depth: number;
      readonly searchAttributes: boolean;
      readonly agentVersionAttribute?: boolean;
      readonly model: string;
      readonly tenant?: string | undefined;
      readonly user?: string | undefined;
    },
    cancelled: Promise<string>,
  ): Promise<ToolResult> {
    const depth = input.depth + 1;
    if (depth > MAX_AGENT_DEPTH) {
      const message = `${call.name} was not run: agent tools may nest at most ${MAX_AGENT_DEPTH} deep.`;
      return errorResult(call, toolError('tool_unavailable', message), { message });
    }
    const task = (call.args as { task?: unknown }).task;
    const { workflowId: parentId, workflowType } = workflowInfo();
    const workflowId = `${parentId}/${call.toolCallId}`;
    let child;
    try {
      child = await startChild(workflowType, {
        workflowId,
        // The child's own model, else the parent's.
        args: [
          {
            agent: agent.name,
            prompt: String(task),
            depth,
            ...(!agent.model && { model: input.model }),
            ...(input.searchAttributes && { searchAttributes: true }),
            ...(input.agentVersionAttribute && { agentVersionAttribute: true }),
            ...(input.tenant !== undefined && { tenant: input.tenant }),
            ...(input.user !== undefined && { user: input.user }),
          } satisfies AgentRunInput,
        ],
        staticSummary: `${agent.name}: ${String(task)}`.slice(0, 200),
        // The child belongs to the parent's tenant (and user): its memo, and its search attributes when registered.
        // Its priority (fairness key) is the parent's: Temporal's default for a child.
        ...ownerStartOptions(input, agent),
      });
    } catch (err) {
      return resultAfterRetries(call, fromError(err));
    }
    const link: ChildLink = {
      toolCallId: call.toolCallId,
      agent: agent.name,
      workflowId,
      runId: child.firstExecutionRunId,
    };
    this.#children.set(workflowId, { link, status: null });
    let cancelReason: string | undefined;
    let running = true;
    void cancelled.then(async (reason) => {
      cancelReason = reason;
      // A child that already finished cannot take a Signal; nothing is lost then.
      if (running)
        await getExternalWorkflowHandle(workflowId)
          .signal(cancelSignal, reason)
          .catch(() => undefined);
    });
    const linked = { runLink: { workflowId, runId: child.firstExecutionRunId }, childrenCount: 1 };
    try {
      const result: AgentRunResult = await child.result();
      if (result.reason === null)
        return {
          status: 'ok',
          name: call.name,
          toolCallId: call.toolCallId,
          result: { answer: result.answer },
          telemetry: { durationMs: 0, attempt: 1 },
          ...linked,
        };
      const code = cancelReason !== undefined ? 'cancelled' : 'partial_data';
      const message = `${agent.name} stopped before finishing (${result.reason}); its last answer is partial.`;
      return {
        ...errorResult(
          call,
          toolError(code, message, chainOf(result.errors ?? [])),
          { message },
          { partialResult: { answer: result.answer } },
        ),
        ...linked,
      };
    } catch (err) {
      return { ...childEnded(call, agent.name, workflowId, fromError(err)), ...linked };
    } finally {
      running = false;
      this.#children.delete(workflowId);
    }
  }
}

/** A child run's side: tells its parent (if it has one) when a person must act on it, and when no longer. */
export class ParentLink {
  #last = JSON.stringify([null, []]);

  async notify(state: PlannerState, waiting: boolean): Promise<void> {
    const { parent, workflowId, runId } = workflowInfo();
    if (!parent) return;
    const status: ChildStatus = {
      workflowId,
      runId,
      clarification: waiting ? state.clarification : null,
      reviews: waiting ? state.reviews : [],
    };
    const key = JSON.stringify([status.clarification, status.reviews]);
    if (key === this.#last) return;
    this.#last = key;
    // The parent may have closed meanwhile: then nobody is left to tell.
    await getExternalWorkflowHandle(parent.workflowId)
      .signal(childStatusSignal, status)
      .catch(() => undefined);
  }
}

/** A child's recent errors as one cause chain, newest first; bounded by toolError. */
function chainOf(errors: readonly ErrorSummary[]): ToolError | undefined {
  let chain: ToolError | undefined;
  for (const e of errors) chain = toolError(e.code, `${e.tool} ${e.toolCallId}: ${e.message}`, chain);
  return chain;
}

/**
 * A child run that closed without a result. Terminated or cancelled (by an operator, say) is said
 * as such, `cancelled`: nothing was retried and the agent tool is not at fault, so it stays
 * enabled. Any other failure is read as a tool's failure after its retries.
 */
function childEnded(call: ToolCall, agent: string, workflowId: string, cause: ToolError): ToolResult {
  const links = errorChain(cause);
  const how = links.some((link) => link.name === 'TerminatedFailure')
    ? 'terminated'
    : links.some((link) => link.name === 'CancelledFailure')
      ? 'cancelled'
      : undefined;
  if (!how) return resultAfterRetries(call, cause);
  const message = `The ${agent} run ${workflowId} was ${how} before it finished, so it has no answer; it was not retried, and ${call.name} is not at fault.`;
  return errorResult(call, toolError('cancelled', message, cause), { message });
}

/**
 * The memo and search attributes that say who a child run belongs to, and its agent when the agent
 * chooses its versioning (shared/agent/versioning.ts); nothing for a run of no tenant and no choice.
 */
function ownerStartOptions(
  input: {
    readonly searchAttributes: boolean;
    readonly tenant?: string | undefined;
    readonly user?: string | undefined;
  },
  agent: Agent,
) {
  const versioned = agent.versioning !== undefined && { [AGENT_MEMO]: agent.name };
  const owned = input.tenant !== undefined || input.user !== undefined;
  if (!owned && !versioned) return {};
  return {
    memo: { ...versioned, ...ownerMemo(input) },
    ...(owned && input.searchAttributes && { typedSearchAttributes: ownerSearchAttributes(input) }),
  };
}
