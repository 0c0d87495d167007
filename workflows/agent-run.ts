/**
 * agentRun: one durable agent run. The loop asks the planner what to do (loopControl before a
 * step, advance after it), takes the step (take-step.ts) and records the plan. All decisions are
 * the planner's; this file is Temporal glue: queries, search attributes, UI details, continue-as-new.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { reachableAgents, type Agent } from '../shared/agent/define-agent.js';
import { DefinitionError } from '../shared/failures/definition-error.js';
import type { TranscriptSlice } from '../shared/model/transcript.js';
import { advance, deliverMessages, handOverDue, loopControl, planStart, resolvePolicy, runOutcome, toolboxOf, transcriptEntries, type LoopSignals, type Plan, type PlanStep } from '../planner/index.js';
import { BudgetRequests } from './budget-requests.js';
import { CairnAgent, CairnPhase, searchPhase } from '../contract/search-attributes.js';
import { describeStep, runDetails, runState } from './run-details.js';
import { TranscriptLog } from './transcript-log.js';
import { HAND_OVER_AFTER_SIGNALS, RunInbox } from './run-inbox.js';
import { ChildRuns, ParentLink } from './child-runs.js';
import { RunStream } from './run-stream.js';
import { RunNarrator } from './run-narrator.js';
import { UserMessages } from './user-messages.js';
import { runInputProblem } from './run-input.js';
import { WaitingMemo } from './inbox-memo.js';
import { mcpListings, runTools, unavailableNote } from './mcp-listing.js';
import { takeStep } from './take-step.js';
import { stateQuery, transcriptQuery, untilIdleUpdate, type RunState, type StepLogEntry } from '../contract/run-state.js';
import type { AgentRunInput, AgentRunResult } from '../contract/agent-run.js';

export { MODEL_ACTIVITY_OPTIONS } from './take-step.js';

/**
 * Builds the `agentRun` workflow over a fixed set of agents (bundled with the workflow code).
 * Only the agents' contracts are used here: tools' `execute` is never called in a workflow.
 */
export function defineAgentRun(agents: readonly Agent[]) {
  const twice = agents.find((a, i) => agents.findIndex((b) => b.name === a.name) !== i);
  if (twice) throw new DefinitionError('duplicate_agent_name', `Two agents are named "${twice.name}"; agent names must be unique.`);
  // Agents that agent tools run are served too: a child run is this workflow with another agent.
  const byName = new Map(reachableAgents(agents).map((a) => [a.name, a]));
  return async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
    const problem = runInputProblem(input);
    if (problem) throw ApplicationFailure.nonRetryable(problem, 'invalid_run_input');
    // Only runs that upsert search attributes publish what they wait for (the inbox lists only those).
    const publishWaiting = input.searchAttributes === true;
    const agent = byName.get(input.agent);
    if (!agent) throw ApplicationFailure.nonRetryable(`Unknown agent "${input.agent}". Known: ${[...byName.keys()].join(', ')}`, 'unknown_agent');
    const model = input.model ?? agent.model;
    if (!model)
      throw ApplicationFailure.nonRetryable(
        `No model for agent "${agent.name}": name one in its definition (defineAgent({ model: 'openai:gpt-4.1-mini' })) or in the run's input (model).`,
        'no_model',
      );
    const { carried } = input;
    // MCP tools join these once listed (below, after the handlers are installed).
    const tools = new Map(agent.tools.map((t) => [t.name, t]));
    let toolbox = toolboxOf(agent.tools);
    const generation = carried?.generation ?? 0;
    const startTurn = carried?.state.turn ?? 0;

    const transcript = new TranscriptLog(
      carried
        ? carried.transcript
        : [
            { role: 'system', content: agent.instructions },
            { role: 'user', content: input.prompt },
          ],
    );
    // A carried policy from an older build lacks newer fields: the defaults fill them.
    const start = () => planStart({ policy: resolvePolicy(agent.policy, input.policy), tools: [...tools.keys()], now: Date.now(), runKey: workflowInfo().workflowId });
    let plan: Plan = carried
      ? { state: { ...carried.state, policy: resolvePolicy(carried.state.policy), runKey: carried.state.runKey ?? workflowInfo().workflowId }, step: carried.step, record: [], notes: [] }
      : start();
    let state = plan.state;
    let handingOver = false;
    let finalAnswer: string | null = null;
    let failure: RunState['failure'];
    const scheduled = new Map<string, number>();
    const steps: StepLogEntry[] = [...(carried?.steps ?? [])];
    let seq = steps.at(-1)?.seq ?? 0;

    const stream = new RunStream(carried?.stream);
    stream.install();
    const narrator = new RunNarrator(stream, () => state);
    if (!carried) narrator.started(agent.name, input.prompt);
    const waitingMemo = new WaitingMemo(input.prompt, input.tenant);
    const publish = () => {
      if (publishWaiting) waitingMemo.publish(snapshot(), transcript.messages, Date.now());
    };
    const children = new ChildRuns();
    children.install((link, status) => {
      narrator.childWaiting(link, status);
      publish();
    });
    const parent = new ParentLink();
    const inbox = new RunInbox(carried);
    inbox.install(() => state, tools, children, (kind, id, detail) => narrator.heard(kind, id, detail));
    const messages = new UserMessages(carried?.messages);
    messages.install(() => state, () => finalAnswer !== null || handingOver, (kind, id, detail) => narrator.heard(kind, id, detail));
    const budget = new BudgetRequests();
    budget.install(() => plan.step, () => handingOver);
    const snapshot = () =>
      runState({ agent: agent.name, state, paused: inbox.paused, finalAnswer, transcriptLength: transcript.length, generation, continuingAsNew: handingOver, steps, children, failure, step: plan.step, owner: { tenant: input.tenant, user: input.user } });
    setHandler(stateQuery, snapshot);
    const idle = () => finalAnswer !== null || handingOver || inbox.holding() || inbox.awaitsPerson(state) || children.waiting() || plan.step.type === 'await_budget';
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
      if (!carried) plan = { ...start(), ...(note && { notes: [note] }) };
      state = plan.state;
    }

    if (input.searchAttributes) upsertSearchAttributes([{ key: CairnAgent, value: agent.name }]);
    let lastPhase = '';
    let lastStep: PlanStep | undefined;
    let applied: Plan | undefined;

    /** Records a new plan once: the transcript, the state, the step log, the UI's view. */
    const apply = (p: Plan) => {
      transcript.append(transcriptEntries(p, transcript.messages));
      transcript.fit(p.state.policy.context);
      state = p.state;
      const phase = searchPhase(state.phase);
      if (input.searchAttributes && phase !== lastPhase) upsertSearchAttributes([{ key: CairnPhase, value: phase }]);
      lastPhase = phase;
      let logged: StepLogEntry | undefined;
      if (p.reply || p.record.length > 0 || p.notes.length > 0 || p.said || p.step !== lastStep) {
        const { action, detail } = p.said ? { action: 'message', detail: p.said.join(' | ') } : describeStep(p.step, state);
        // Clipped: the log travels with every continue-as-new and every state snapshot.
        logged = { seq: ++seq, turn: state.turn, at: transcript.length, action, detail: detail.slice(0, 300) };
        steps.push(logged);
        if (steps.length > 50) steps.shift();
      }
      narrator.recorded(p, logged);
      lastStep = p.step;
      applied = p;
    };
    const signals = (): LoopSignals => ({
      cancelReason: inbox.cancelReason,
      paused: inbox.paused,
      continueAsNewSuggested: workflowInfo().continueAsNewSuggested || inbox.signalsTaken >= HAND_OVER_AFTER_SIGNALS,
      historyBytes: workflowInfo().historySize,
      historyEvents: workflowInfo().historyLength,
      turnsThisRun: state.turn - startTurn,
      ...(input.continueAsNewAfterTurns !== undefined && { continueAsNewAfterTurns: input.continueAsNewAfterTurns }),
    });
    const context = () => ({ now: Date.now(), toolbox });

    // A Temporal cancel of the run is a cancel like any other: the steps in flight finish (they
    // run in a scope Temporal does not cancel), then the model gives a final answer with no tools.
    CancellationScope.current().cancelRequested.catch(() => inbox.cancel('the run was cancelled'));
    const drive = async (): Promise<AgentRunResult> => {
      for (;;) {
        if (plan !== applied) apply(plan);
        const delivered = deliverMessages(state, plan.step, messages.queued);
        if (delivered) {
          messages.delivered();
          apply((plan = delivered));
        }
        setCurrentDetails(runDetails(snapshot()));
        publish();
        const step = plan.step;
        switch (loopControl(state, step, signals())) {
          case 'finish': {
            const finish = step as Extract<PlanStep, { type: 'finish' }>;
            const { answer, reason } = finish;
            const outcome = runOutcome(state, finish);
            // A model that cannot be used fails the run (status Failed), with its code as the failure's type.
            const fails = finish.end?.fail === true;
            if (fails) failure = { type: finish.end!.code, message: finish.end!.message };
            else finalAnswer = answer;
            setCurrentDetails(runDetails(snapshot()));
            // A failed run's stream ends with its failure, not a finish (readers get the workflow's failure).
            if (!fails) {
              narrator.finished(answer, reason);
              // A reader following the stream gets the end before the run closes (bounded; none polling, no wait).
              await stream.linger(state.policy.readerLingerMs);
            }
            stream.close();
            await condition(allHandlersFinished);
            const usage = state.usage && { usage: state.usage };
            if (fails) {
              const end = finish.end!;
              throw ApplicationFailure.create({ type: end.code, message: end.message, nonRetryable: true, details: [{ code: end.code, model, ...usage }] });
            }
            return { answer, reason, outcome, turns: state.turn, toolCalls: state.toolCallsUsed, generation, errors: state.lastErrors, ...usage };
          }
          case 'cancel':
            plan = advance(state, step, { type: 'cancelled', reason: inbox.cancelReason! }, context());
            continue;
          case 'hold': {
            const since = Date.now();
            await condition(() => loopControl(state, step, signals()) !== 'hold');
            plan = advance(state, step, { type: 'resumed', pausedMs: Date.now() - since }, context());
            continue;
          }
          case 'hand_over': {
            // Lets a waiting untilIdle and waiting stream polls return, so their handlers finish.
            handingOver = true;
            stream.close();
            await condition(allHandlersFinished);
            handingOver = false;
            if (loopControl(state, step, signals()) !== 'hand_over') {
              stream.reopen(); // a cancel or a pause arrived meanwhile: act on it here
              continue;
            }
            narrator.handingOver(generation + 1);
            return continueAsNew<typeof agentRun>({
              ...input,
              carried: {
                ...{ state, step, transcript: transcript.messages, generation: generation + 1, ...inbox.carried(state), steps, stream: stream.carried() },
                ...(listings.length > 0 && { mcp: listings }),
                ...(messages.carried() && { messages: messages.carried() }),
              },
            });
          }
          case 'take_step':
            break;
        }
        await parent.notify(state, step.type === 'await_clarification' || step.type === 'await_review');
        narrator.taking(step);
        const working = messages.working(step);
        const happened = await takeStep(step, {
          interrupted: working.interrupted,
          state,
          scheduled,
          inbox,
          tools,
          children: { runs: children, depth: input.depth ?? 0, searchAttributes: input.searchAttributes === true, model, tenant: input.tenant, user: input.user },
          model,
          transcript: { length: transcript.length, epoch: transcript.epoch },
          handOverDue: () => handOverDue(state, signals()),
          budget,
        });
        working.done();
        narrator.took(happened);
        if (happened) plan = advance(state, step, happened, context());
      }
    };
    return CancellationScope.nonCancellable(drive).catch((err: unknown) => {
      // The run fails (its model cannot be used): its state says why too, for `cairn show` and the UI.
      if (err instanceof ApplicationFailure) {
        failure = { type: err.type ?? 'ApplicationFailure', message: err.message };
        setCurrentDetails(runDetails(snapshot()));
      }
      throw err;
    });
  };
}
