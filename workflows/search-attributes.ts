/**
 * Search attributes Cairn sets on every run, so the Temporal UI and CLI can list runs by agent
 * and by what they wait for (e.g. `CairnPhase = "awaiting_review"`).
 * Workflow-safe: `defineSearchAttributeKey` is in @temporalio/common.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const CairnAgent = defineSearchAttributeKey('CairnAgent', SearchAttributeType.KEYWORD);
export const CairnPhase = defineSearchAttributeKey('CairnPhase', SearchAttributeType.KEYWORD);

export const CAIRN_SEARCH_ATTRIBUTES = [CairnAgent, CairnPhase];
