/**
 * Continue-as-new, when the loop says it is due: the run lets its waiting readers return (an
 * untilIdle, stream polls) so every handler finishes, then hands its continuation what it must
 * still act on (`CarriedRun`). A cancel or a pause that arrived meanwhile keeps the run here.
 */
import { allHandlersFinished, condition, continueAsNew } from '@temporalio/workflow';
import type { AgentRunInput, CarriedRun } from './contract/agent-run.js';
import type { RunNarrator } from './run-narrator.js';
import type { RunStream } from './run-stream.js';
import type { RunUpgrade } from './run-upgrade.js';

export class HandOver {
  /** True while the run hands over: readers return, and new messages and decisions are refused to send again. */
  active = false;

  constructor(
    private readonly stream: RunStream,
    private readonly narrator: RunNarrator,
  ) {}

  /**
   * Continues as new, as run `generation` of the chain, with what `carried` gives (read after the
   * stream says so, so the continuation carries that too); undefined when it is no longer `due`
   * once the handlers finished. Onto the deployment's current build when `upgrade` is due.
   */
  async run(
    input: AgentRunInput,
    due: () => boolean,
    generation: number,
    upgrade: RunUpgrade,
    carried: () => CarriedRun,
  ): Promise<undefined> {
    this.active = true;
    this.stream.close();
    await condition(allHandlersFinished);
    this.active = false;
    if (!due()) {
      this.stream.reopen(); // a cancel or a pause arrived meanwhile: the loop acts on it here
      return undefined;
    }
    const moving = upgrade.moving();
    this.narrator.handingOver(generation, moving ? upgrade.target : undefined);
    const next = { ...input, carried: carried() };
    return moving ? upgrade.continueAsNew(next) : continueAsNew<(input: AgentRunInput) => Promise<unknown>>(next);
  }
}
