/**
 * agentRun: one durable agent run. The planner's loop (planner/run-loop.ts) decides; this file is
 * its Temporal driver: it assembles the run's parts (the inbox of what people send, messages,
 * budget requests, children, the stream and its narrator, the status push), records each plan
 * (transcript, step log, search attributes, UI details), takes steps (take-step.ts), waits out
 * pauses, and hands over to the parts that end it (run-end.ts) or continue it as new (hand-over.ts).
 */
import {
  CancellationScope,
  condition,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { reachableAgents, type Agent } from '../shared/agent/define-agent.js';
import { agentVersion } from '../shared/agent/agent-version.js';
import { DefinitionError } from '../shared/failures/definition-error.js';
import type { TranscriptMessage, TranscriptSlice } from '../shared/model/transcript.js';
import {
  planStart,
  resolvePolicy,
  toolboxOf,
  transcriptEntries,
  type LoopSignals,
  type Plan,
  type PlannerState,
} from '../planner/index.js';
import { runLoop, type AsyncLoopMoves, type LoopDriver } from '../planner/run-loop.js';
import { BudgetRequests } from './budget-requests.js';
import { CairnAgent, CairnAgentVersion, CairnPhase, searchPhase } from './contract/search-attributes.js';
import { runDetails, runState } from './run-details.js';
import { StepLog } from './step-log.js';
import { TranscriptLog } from './transcript-log.js';
import { HAND_OVER_AFTER_SIGNALS, RunInbox } from './run-inbox.js';
import { ChildRuns, ParentLink } from './child-runs.js';
import { RunStream } from './run-stream.js';
import { RunNarrator } from './run-narrator.js';
import { UserMessages } from './user-messages.js';
import { runAgent } from './run-input.js';
import { RunEnd } from './run-end.js';
import { HandOver } from './hand-over.js';
import { WaitingMemo } from './inbox-memo.js';
import { mcpListings, runTools, unavailableNote } from './mcp-listing.js';
import { takeStep } from './take-step.js';
import { ReviewChanges } from './review-changes.js';
import { StatusPush } from './status-push.js';
import { reportAgentVersioning } from './run-versioning.js';
import { RunUpgrade } from './run-upgrade.js';
import { stateQuery, transcriptQuery, untilIdleUpdate, type RunState } from './contract/run-state.js';
import type { AgentRunInput, AgentRunResult } from './contract/agent-run.js';

export { MODEL_ACTIVITY_OPTIONS } from './take-step.js';

/**
 * Builds the `agentRun` workflow over a fixed set of agents (bundled with the workflow code).
 * Only the agents' contracts are used here: tools' `execute` is never called in a workflow.
 */
export function defineAgentRun(agents: readonly Agent[]) {
  const twice = agents.find((a, i) => agents.findIndex((b) => b.name === a.name) !== i);
  if (twice)
    throw new DefinitionError(
      'duplicate_agent_name',
      `Two agents are named "${twice.name}"; agent names must be unique.`,
    );
  // Agents that agent tools run are served too: a child run is this workflow with another agent.
  const byName = new Map(reachableAgents(agents).map((a) => [a.name, a]));
  // Pinned or auto-upgrade, as each run's agent chose (Worker Deployment Versioning; docs/upgrades.md).
  reportAgentVersioning(agentRun, byName);
  return agentRun;

  async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
    const { agent, model, workspace } = runAgent(input, byName);
    // Only runs that upsert search attributes publish what they wait for (the inbox lists only those).
    const publishWaiting = input.searchAttributes === true;
    const { carried } = input;
    const version = agentVersion(agent);
    // The run continues on another version of its agent (it moved to a newer build at a safe point).
    const changedFrom =
      carried?.agentVersion !== undefined && carried.agentVersion !== version ? carried.agentVersion : undefined;
    // MCP tools join these once listed (below, after the handlers are installed).
    const tools = new Map(agent.tools.map((t) => [t.name, t]));
    let toolbox = toolboxOf(agent.tools);
    const generation = carried?.generation ?? 0;
    const startTurn = carried?.state.turn ?? 0;

    const transcript = new TranscriptLog(
      carried
        ? changedFrom
          ? withInstructions(carried.transcript, agent.instructions)
          : carried.transcript
        : [
            { role: 'system', content: agent.instructions },
            { role: 'user', content: input.prompt },
          ],
    );
    // A carried policy from an older build lacks newer fields: the defaults fill them.
    const start = () =>
      planStart({
        policy: resolvePolicy(agent.policy, input.policy),
        tools: [...tools.keys()],
        now: Date.now(),
        runKey: workflowInfo().workflowId,
      });
    /** The plan last recorded (until the loop starts, the first). */
    let current: Plan = carried
      ? {
          state: {
            ...carried.state,
            policy: resolvePolicy(carried.state.policy),
            runKey: carried.state.runKey ?? workflowInfo().workflowId,
          },
          step: carried.step,
          record: [],
          notes: [],
        }
      : start();
    const scheduled = new Map<string, number>();
    const log = new StepLog(carried?.steps);

    const stream = new RunStream(carried?.stream);
    stream.install();
    const narrator = new RunNarrator(stream, () => current.state);
    if (!carried) narrator.started(agent.name, input.prompt);
    // A run that moved to a newer build (or a deploy that changed the agent) says so to whoever watches.
    else if (changedFrom) narrator.agentChanged(changedFrom, version, workflowInfo().currentDeploymentVersion?.buildId);
    const handOver = new HandOver(stream, narrator);
    const waitingMemo = new WaitingMemo(
      input.prompt,
      input.tenant,
      carried !== undefined,
      agent.versioning === 'auto-upgrade',
    );
    const push = new StatusPush(carried?.push);
    const publish = () => {
      if (publishWaiting) waitingMemo.publish(snapshot(), transcript.messages, Date.now(), current.state.waitingSince);
      push.publish(snapshot);
    };
    const children = new ChildRuns();
    children.install((link, status) => {
      narrator.childWaiting(link, status);
      publish();
    });
    const parent = new ParentLink();
    const inbox = new RunInbox(carried);
    if (changedFrom) inbox.heldBeforeUpgrade(carried!.state.reviews.map((r) => r.toolCallId));
    inbox.install(
      () => current.state,
      tools,
      children,
      (kind, id, detail) => narrator.heard(kind, id, detail),
    );
    const messages = new UserMessages(carried?.messages);
    messages.install(
      () => current.state,
      () => end.answer !== null || handOver.active,
      (kind, id, detail) => narrator.heard(kind, id, detail),
    );
    const budget = new BudgetRequests();
    budget.install(
      () => current.step,
      () => handOver.active,
      (kind, id, detail) => narrator.heard(kind, id, detail),
    );
    const changes = new ReviewChanges();
    const upgrade = new RunUpgrade(agent);
    upgrade.install();
    const snapshot = (): RunState => {
      const state = runState({
        agent: agent.name,
        state: current.state,
        paused: inbox.paused,
        finalAnswer: end.answer,
        transcriptLength: transcript.length,
        generation,
        continuingAsNew: handOver.active,
        steps: log.entries,
        children,
        failure: end.failure,
        step: current.step,
        owner: { tenant: input.tenant, user: input.user },
      });
      return { ...state, agentVersion: version, reviews: changes.with(state.reviews) };
    };
    const end = new RunEnd({ narrator, stream, push, snapshot, model, generation, request: input.prompt });
    setHandler(stateQuery, snapshot);
    push.install(snapshot);
    const idle = () =>
      end.answer !== null ||
      handOver.active ||
      inbox.holding() ||
      inbox.awaitsPerson(current.state) ||
      children.waiting() ||
      current.step.type === 'await_budget';
    setHandler(untilIdleUpdate, async () => (await condition(idle), snapshot()), {
      description: 'Wait until the run awaits a human, is paused, has finished or continues as new; returns its state.',
    });
    setHandler(transcriptQuery, (slice?: TranscriptSlice) => transcript.page(slice));

    // MCP servers' tools: listed once per chain (an activity), after the handlers are installed so
    // Queries answer meanwhile; the workflow checks every call against them.
    const listings = await mcpListings(agent, carried?.mcp);
    if (listings.length > 0) {
      // A function tool keeps its name: an MCP tool of the same name is left out.
      for (const tool of runTools(agent, listings)) if (!tools.has(tool.name)) tools.set(tool.name, tool);
      toolbox = toolboxOf([...tools.values()]);
      const note = unavailableNote(listings);
      if (!carried) current = { ...start(), ...(note && { notes: [note] }) };
    }

    if (input.searchAttributes)
      upsertSearchAttributes([
        { key: CairnAgent, value: agent.name },
        ...(input.agentVersionAttribute ? [{ key: CairnAgentVersion, value: version }] : []),
      ]);
    let lastPhase = '';
    const signals = (state: PlannerState): LoopSignals => ({
      cancelReason: inbox.cancelReason,
      paused: inbox.paused,
      continueAsNewSuggested: workflowInfo().continueAsNewSuggested || inbox.signalsTaken >= HAND_OVER_AFTER_SIGNALS,
      historyBytes: workflowInfo().historySize,
      historyEvents: workflowInfo().historyLength,
      turnsThisRun: state.turn - startTurn,
      ...(input.continueAsNewAfterTurns !== undefined && { continueAsNewAfterTurns: input.continueAsNewAfterTurns }),
      ...withUpgrade(upgrade.signal(messages.queued.length > 0)),
    });

    const driver: LoopDriver = {
      /** Records a new plan once: the transcript, the state, the step log, the UI's view. */
      record(plan) {
        transcript.append(transcriptEntries(plan, transcript.messages));
        transcript.fit(plan.state.policy.context);
        current = plan;
        const phase = searchPhase(plan.state.phase);
        if (input.searchAttributes && phase !== lastPhase) upsertSearchAttributes([{ key: CairnPhase, value: phase }]);
        lastPhase = phase;
        narrator.recorded(plan, log.log(plan, transcript.length));
      },
      messages: { queued: () => messages.queued, delivered: () => messages.delivered() },
      deciding() {
        setCurrentDetails(runDetails(snapshot()));
        publish();
      },
      signals,
      context: () => ({ now: Date.now(), toolbox }),
    };
    const moves: AsyncLoopMoves = {
      async take_step({ state, step, handOverDue }) {
        // Reviews are pending in an await_review step, or while the calls beside them run (`run_others`).
        await parent.notify(state, step.type === 'await_clarification' || state.reviews.length > 0);
        // What a held workspace write would change, for its reviewer (review-changes.ts).
        if (
          workspace &&
          state.reviews.length > 0 &&
          (await changes.prepare(state.reviews, tools, workspace, state.workspace))
        )
          publish();
        narrator.taking(step);
        const working = messages.working(step);
        const happened = await takeStep(step, {
          interrupted: working.interrupted,
          state,
          scheduled,
          inbox,
          tools,
          children: {
            runs: children,
            depth: input.depth ?? 0,
            searchAttributes: input.searchAttributes === true,
            agentVersionAttribute: input.agentVersionAttribute === true,
            model,
            tenant: input.tenant,
            user: input.user,
          },
          model,
          transcript,
          handOverDue,
          budget,
          workspace,
        });
        working.done();
        narrator.took(happened);
        return happened;
      },
      async hold({ held }) {
        const since = Date.now();
        await condition(() => !held());
        return Date.now() - since;
      },
      hand_over: ({ state, step, due }) =>
        handOver.run(input, due, generation + 1, upgrade, () => ({
          state,
          step,
          transcript: transcript.messages,
          generation: generation + 1,
          ...inbox.carried(state),
          steps: log.entries,
          stream: stream.carried(),
          ...(listings.length > 0 && { mcp: listings }),
          ...(messages.carried() && { messages: messages.carried() }),
          ...(push.carried() && { push: push.carried() }),
          agentVersion: version,
        })),
    };

    // A Temporal cancel of the run is a cancel like any other: the steps in flight finish (they
    // run in a scope Temporal does not cancel), then the model gives a final answer with no tools.
    CancellationScope.current().cancelRequested.catch(() => inbox.cancel('the run was cancelled'));
    return CancellationScope.nonCancellable(async () => end.finish(await runLoop(current, driver, moves))).catch(
      (err: unknown) => end.failed(err),
    );
  }
}

const withUpgrade = (upgrade: LoopSignals['upgrade']) => (upgrade ? { upgrade } : {});

/** The transcript with the new version's instructions as its system message: the model meets the agent it now runs. */
function withInstructions(messages: readonly TranscriptMessage[], instructions: string): readonly TranscriptMessage[] {
  const [first, ...rest] = messages;
  return first?.role === 'system' ? [{ ...first, content: instructions }, ...rest] : messages;
}
