/**
 * The coder example as a project of its own: `npm run cairn -- dev --config examples/coder/cairn.config.ts`
 * serves it (from the repository root: its workspace starts from examples/coder/project, relative
 * to the worker's working directory), with its scripted model registered.
 */
import { defineConfig } from 'cairn-agents/worker';
import { coderScripts } from './script.ts';

export default defineConfig({
  agents: './agent.ts',
  models: { scripts: coderScripts() },
  taskQueue: 'cairn-coder',
});
