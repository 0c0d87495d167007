/**
 * Search attributes Cairn sets on every run, so the Temporal UI and CLI can list runs by agent
 * and by what they wait for (e.g. `CairnPhase = "awaiting_review"`). A working run is `running`:
 * its phase alternates between `model` and `tools` every turn, and each change would be an upsert
 * (an event of ~100 bytes) twice a turn; the `state` Query still tells them apart.
 * Part of the run's contract (workflows/contract/index.ts): clients list runs by them. Workflow-safe:
 * `defineSearchAttributeKey` is in @temporalio/common.
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const CairnAgent = defineSearchAttributeKey('CairnAgent', SearchAttributeType.KEYWORD);
export const CairnPhase = defineSearchAttributeKey('CairnPhase', SearchAttributeType.KEYWORD);

/** The tenant a run belongs to, and the user who started it (set at start, inherited by child runs). */
export const CairnTenant = defineSearchAttributeKey('CairnTenant', SearchAttributeType.KEYWORD);
export const CairnUser = defineSearchAttributeKey('CairnUser', SearchAttributeType.KEYWORD);

export const CAIRN_SEARCH_ATTRIBUTES = [CairnAgent, CairnPhase, CairnTenant, CairnUser];

/**
 * The version of the run's agent (shared/agent/agent-version.ts), so a fleet can be listed by it
 * (`CairnAgentVersion = "…"`). Optional: runs set it only where the namespace has it registered,
 * so a namespace set up before it keeps its inbox.
 */
export const CairnAgentVersion = defineSearchAttributeKey('CairnAgentVersion', SearchAttributeType.KEYWORD);
export const CAIRN_OPTIONAL_SEARCH_ATTRIBUTES = [CairnAgentVersion];

/** A tenant id: safe in a workflow id, a visibility query and a fairness key. */
export const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/;

/** The memo keys a run's owner is kept under (readable by `describe()` whether or not search attributes are registered). */
export const TENANT_MEMO = 'cairnTenant';
export const USER_MEMO = 'cairnUser';

/**
 * The memo key a run's agent is named under at start, before the run reads its input: how an
 * agent's `versioning` reaches Temporal (shared/agent/versioning.ts). CairnClient writes it on every
 * start, a parent on a child run whose agent chooses its versioning.
 */
export const AGENT_MEMO = 'cairnAgent';

/** The `CairnPhase` a phase is listed under: `model` and `tools` are both `running`. */
export function searchPhase(phase: string): string {
  return phase === 'model' || phase === 'tools' ? 'running' : phase;
}

/** Who a run belongs to, as its memo keeps it. */
export function ownerMemo(owner: {
  readonly tenant?: string | undefined;
  readonly user?: string | undefined;
}): Record<string, string> {
  return {
    ...(owner.tenant !== undefined && { [TENANT_MEMO]: owner.tenant }),
    ...(owner.user !== undefined && { [USER_MEMO]: owner.user }),
  };
}

/** Who a run belongs to, as search attributes (the namespace must have them registered). */
export function ownerSearchAttributes(owner: {
  readonly tenant?: string | undefined;
  readonly user?: string | undefined;
}): SearchAttributePair[] {
  return [
    ...(owner.tenant !== undefined ? [{ key: CairnTenant, value: owner.tenant }] : []),
    ...(owner.user !== undefined ? [{ key: CairnUser, value: owner.user }] : []),
  ];
}
