/**
 * The coder agent's scripted model: what a real model does with this project, step by step, each
 * step reading what the tools answered (the test output, the file) as a model would. Register it
 * with `models: { scripts: coderScripts() }`. Example code.
 */
import { PerRunScriptedModel, scriptStep, type Script } from 'cairn-agents/testing';
import type { ModelClient } from 'cairn-agents/worker';

const FIX = [
  '--- a/sum.js',
  '+++ b/sum.js',
  '@@ -1,6 +1,6 @@',
  ' // Adds up a list of prices given in cents.',
  ' export function total(prices) {',
  '   let sum = 0;',
  '-  for (let i = 1; i < prices.length; i++) sum += prices[i];',
  '+  for (let i = 0; i < prices.length; i++) sum += prices[i];',
  '   return sum;',
  ' }',
  '',
].join('\n');

/** The last result of `tool`, as the model reads it. */
function lastResult(
  messages: Parameters<Extract<Script[number], { kind: 'react' }>['produce']>[0]['messages'],
  tool: string,
) {
  const found = [...messages].reverse().find((m) => m.role === 'tool' && m.name === tool);
  return found?.role === 'tool' ? found.content : undefined;
}

export const coderScript: Script = [
  scriptStep.calls([
    { name: 'list_files', arguments: {} },
    { name: 'run_command', arguments: { command: 'node --test 2>&1' } },
  ]),
  scriptStep.call('read_file', { path: 'sum.js' }),
  scriptStep.call('apply_patch', { patch: FIX }),
  scriptStep.call('run_command', { argv: ['node', '--test'] }),
  // Only once the tests pass: clean up (a command that deletes files: a person reviews it).
  scriptStep.react(({ messages }) => {
    const run = lastResult(messages, 'run_command');
    const passed = typeof run === 'object' && run !== null && 'exitCode' in run && run.exitCode === 0;
    return passed
      ? scriptStep.call('run_command', { command: 'rm -f notes.tmp' })
      : scriptStep.text('The tests still fail after my change; see the last test run.');
  }),
  scriptStep.text(
    'Fixed total() in sum.js: the loop skipped the first price (it started at 1). The tests pass, and I removed notes.tmp.',
  ),
];

/** The scripts a worker registers for the coder agent, by name. */
export function coderScripts(): Record<string, ModelClient> {
  return { coder: new PerRunScriptedModel('coder', coderScript) };
}
