/**
 * Search attributes Cairn sets on every run, so the Temporal UI and CLI can list runs by agent
 * and by what they wait for (e.g. `CairnPhase = "awaiting_review"`). A working run is `running`:
 * its phase alternates between `model` and `tools` every turn, and each change would be an upsert
 * (an event of ~100 bytes) twice a turn; the `state` Query still tells them apart.
 * Workflow-safe: `defineSearchAttributeKey` is in @temporalio/common.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const CairnAgent = defineSearchAttributeKey('CairnAgent', SearchAttributeType.KEYWORD);
export const CairnPhase = defineSearchAttributeKey('CairnPhase', SearchAttributeType.KEYWORD);

export const CAIRN_SEARCH_ATTRIBUTES = [CairnAgent, CairnPhase];

/** The `CairnPhase` a phase is listed under: `model` and `tools` are both `running`. */
export function searchPhase(phase: string): string {
  return phase === 'model' || phase === 'tools' ? 'running' : phase;
}
