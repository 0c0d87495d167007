import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evalBenchAgent } from '../../bench/eval-agents.js';
import { defineAgent } from '../../shared/agent/define-agent.js';
import { findAgentSource } from './agent-source.js';

const evalModule = fileURLToPath(new URL('../../bench/eval-module.ts', import.meta.url));

describe('findAgentSource', () => {
  it('finds the module and export the eval module imports its agent from', async () => {
    expect(await findAgentSource(evalModule, evalBenchAgent)).toEqual({
      file: fileURLToPath(new URL('../../bench/eval-agents.ts', import.meta.url)),
      exportName: 'evalBenchAgent',
    });
  });

  it('says nothing for an agent no imported module exports (one defined in the eval module, or a copy)', async () => {
    const copy = defineAgent({ ...evalBenchAgent });
    expect(await findAgentSource(evalModule, copy)).toBeUndefined();
  });

  it('says nothing for a module it cannot read', async () => {
    expect(await findAgentSource('/nonexistent/eval.ts', evalBenchAgent)).toBeUndefined();
  });
});
