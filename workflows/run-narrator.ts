/**
 * Tells the run's story on its live stream (run-stream.ts): turns what the loop does — a plan
 * recorded, a step about to run, what a step brought back, what a person sent — into events.
 * Every tool call ends with exactly one `tool_end` per execution, including calls the planner
 * decided without running them. Workflow code (sandbox), deterministic.
 */
import type { JsonValue } from '../shared/json/json.js';
import type { Happening, Plan, PlanStep, PlannerState } from '../planner/index.js';
import { modelTurnEvent, preview, toolEndEvent, toolStartEvent } from './run-events.js';
import type { HumanKind, RunEvent } from './contract/run-event.js';
import type { ChildLink, ChildStatus, StepLogEntry } from './contract/run-state.js';
import type { RunStream } from './run-stream.js';

export class RunNarrator {
  /** Calls whose result was told since the last batch was recorded. */
  readonly #told = new Set<string>();

  constructor(
    private readonly stream: RunStream,
    private readonly state: () => PlannerState,
  ) {}

  #base() {
    return { at: Date.now(), turn: this.state().turn };
  }

  #tell(event: RunEvent): void {
    this.stream.publish(event);
  }

  started(agent: string, prompt: string): void {
    this.#tell({ ...this.#base(), type: 'run_started', agent, prompt: prompt.slice(0, 2_000) });
  }

  /** A plan was recorded; `logged` is its step-log entry when the step is new. */
  recorded(plan: Plan, logged: StepLogEntry | undefined): void {
    // A call never told started (refused at the boundary) ends with the arguments the model sent.
    const sent = (id: string) => plan.reply?.toolCalls.find((c) => c.toolCallId === id)?.args;
    for (const result of plan.record)
      if (!this.#told.has(result.toolCallId)) this.#tell(toolEndEvent(this.#base(), result, sent(result.toolCallId)));
    if (plan.record.length > 0) this.#told.clear();
    if (!logged) return;
    this.#tell({ ...this.#base(), type: 'decision', seq: logged.seq, action: logged.action, detail: logged.detail });
    const step = plan.step;
    if (step.type === 'await_clarification')
      this.#tell({ ...this.#base(), type: 'question', clarification: step.clarification });
    if (step.type === 'await_review') this.#tell({ ...this.#base(), type: 'review', reviews: step.reviews });
  }

  /** The step is about to run. */
  taking(step: PlanStep): void {
    if (step.type === 'execute_tools') for (const call of step.calls) this.#tell(toolStartEvent(this.#base(), call));
  }

  /** What the step brought back. */
  took(happening: Happening | undefined): void {
    // A reconciled call ends again, with its reconciled result, when the batch is recorded.
    if (happening?.type === 'reconciled') for (const report of happening.reports) this.#told.delete(report.toolCallId);
    if (happening?.type === 'model_outcome')
      this.#tell(modelTurnEvent(this.#base(), happening.outcome, happening.call));
    if (happening?.type === 'tool_results')
      for (const result of happening.results) {
        this.#tell(toolEndEvent(this.#base(), result));
        this.#told.add(result.toolCallId);
      }
  }

  /** A person's answer or decision was taken. */
  heard(kind: HumanKind, id: string, detail: JsonValue): void {
    this.#tell({ ...this.#base(), type: 'human', kind, id, detail: preview(detail) });
  }

  /** A child run waits for a person (or no longer): its question and reviews, as the parent shows them. */
  childWaiting(link: ChildLink, status: ChildStatus): void {
    const base = this.#base();
    const child = { toolCallId: link.toolCallId, agent: link.agent, workflowId: link.workflowId, runId: link.runId };
    if (status.clarification)
      this.#tell({
        ...base,
        type: 'question',
        clarification: { ...status.clarification, id: `${link.toolCallId}/${status.clarification.id}` },
        child,
      });
    if (status.reviews.length > 0)
      this.#tell({
        ...base,
        type: 'review',
        reviews: status.reviews.map((r) => ({ ...r, toolCallId: `${link.toolCallId}/${r.toolCallId}` })),
        child,
      });
  }

  handingOver(generation: number, upgradeTo?: string): void {
    this.#tell({ ...this.#base(), type: 'hand_over', generation, ...(upgradeTo !== undefined && { upgradeTo }) });
  }

  /** The run continues on another version of its agent (a newer build, at a safe point). */
  agentChanged(from: string, to: string, buildId: string | undefined): void {
    this.#tell({ ...this.#base(), type: 'agent_changed', from, to, ...(buildId !== undefined && { buildId }) });
  }

  finished(answer: string, reason: string | null): void {
    // The stream stays open: the run closes it once its readers have the end (agent-run.ts, RunStream.linger).
    this.#tell({
      ...this.#base(),
      type: 'finish',
      answer: answer.slice(0, 4_000),
      reason,
      toolCalls: this.state().toolCallsUsed,
    });
  }
}
