/**
 * What `cairn dev` and `cairn worker` run: the agents module (bundled into workflow code) and,
 * for the worker only, the tools' deps.
 */
import { defineConfig } from 'cairn-agents/worker';
import { scriptedModels } from './src/scripted-model.ts';
import { demoShop } from './src/worker.ts';

export default defineConfig({
  agents: './src/agents.ts',
  deps: () => demoShop(),
  models: scriptedModels(), // `scripted:support`, the agent's model until you name a real one
});
