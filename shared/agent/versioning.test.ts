import { describe, expect, it } from 'vitest';
import { AGENT_VERSIONINGS, isAgentVersioning, runVersioningBehavior, TEMPORAL_BEHAVIORS } from './versioning.js';

const agents = new Map([
  ['support', { versioning: 'pinned' as const }],
  ['triage', { versioning: 'auto-upgrade' as const }],
  ['plain', {}],
]);

describe('runVersioningBehavior: what a run reports to Temporal', () => {
  it("on a versioned worker, the behavior its agent chose, by Temporal's name", () => {
    expect(runVersioningBehavior({ agent: 'support', deploymentName: 'agents' }, agents)).toBe('PINNED');
    expect(runVersioningBehavior({ agent: 'triage', deploymentName: 'agents' }, agents)).toBe('PINNED'); // it moves itself, at a safe point
  });

  it("leaves the worker's default in charge for an agent that chose nothing, an unknown agent, or no memo", () => {
    expect(runVersioningBehavior({ agent: 'plain', deploymentName: 'agents' }, agents)).toBeUndefined();
    expect(runVersioningBehavior({ agent: 'gone', deploymentName: 'agents' }, agents)).toBeUndefined();
    expect(runVersioningBehavior({ agent: undefined, deploymentName: 'agents' }, agents)).toBeUndefined();
    expect(runVersioningBehavior({ agent: 42, deploymentName: 'agents' }, agents)).toBeUndefined();
  });

  it('names no behavior on a worker that is not versioned (Temporal would fail every workflow task)', () => {
    expect(runVersioningBehavior({ agent: 'support', deploymentName: '' }, agents)).toBeUndefined();
    expect(runVersioningBehavior({ agent: 'triage', deploymentName: undefined }, agents)).toBeUndefined();
  });
});

describe('the choices', () => {
  it('are pinned and auto-upgrade, each with its Temporal name', () => {
    expect(AGENT_VERSIONINGS).toEqual(['pinned', 'auto-upgrade']);
    expect(TEMPORAL_BEHAVIORS).toEqual({ pinned: 'PINNED', 'auto-upgrade': 'AUTO_UPGRADE' });
    expect(AGENT_VERSIONINGS.every(isAgentVersioning)).toBe(true);
    for (const other of ['PINNED', 'auto_upgrade', 'off', '', undefined, null, 1])
      expect(isAgentVersioning(other), String(other)).toBe(false);
  });
});
