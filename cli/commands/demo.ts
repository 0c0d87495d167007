/** `cairn demo`: the scripted end-to-end demo, delegated to cli/demo.ts (which owns its own --help). */
import type { Command } from '../command.js';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'Run the scripted demo end to end (see cairn demo --help)',
  help: '',
  delegates: true,
  async run(argv) {
    // Loaded on demand: the demo starts its own server and worker.
    const { runDemo } = await import('../demo.js');
    return runDemo([...argv]);
  },
};
