/**
 * The `cairn` command line: picks the command, handles `--help` and `--json`, and turns every
 * failure into one line on stderr with exit code 2 (usage) or 1 (runtime). Node-only.
 */
import type { Command } from './command.js';
import { hasFlag } from './command.js';
import { answerCommand } from './commands/answer.js';
import { sayCommand } from './commands/say.js';
import { codecServerCommand } from './commands/codec-server.js';
import { demoCommand } from './commands/demo.js';
import { devCommand } from './commands/dev.js';
import { deployCommand } from './commands/deploy.js';
import { guardsCommand } from './commands/guards.js';
import { initCommand } from './commands/init.js';
import { mcpCommand } from './commands/mcp.js';
import { replayCommand } from './commands/replay.js';
import { evalCommand } from './commands/eval.js';
import { reviewCommand } from './commands/review.js';
import { runCommand } from './commands/run.js';
import { serveCommand } from './commands/serve.js';
import { showCommand } from './commands/show.js';
import { watchCommand } from './commands/watch.js';
import { workerCommand } from './commands/worker.js';
import { describeError, exitCodeOf } from './errors.js';
import { createIo, type Streams } from './io.js';

export const COMMANDS: readonly Command[] = [
  initCommand,
  devCommand,
  workerCommand,
  runCommand,
  watchCommand,
  answerCommand,
  sayCommand,
  reviewCommand,
  showCommand,
  serveCommand,
  mcpCommand,
  guardsCommand,
  replayCommand,
  deployCommand,
  evalCommand,
  codecServerCommand,
  demoCommand,
];

export const HELP = `Usage: cairn <command> [arguments] [options]

Durable LLM agents on Temporal.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(Math.max(...COMMANDS.map((d) => d.name.length)))} ${c.summary}`).join('\n')}

Every command takes --help, and --json for one machine-readable JSON document on stdout.
Connection: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
TEMPORAL_TLS*, TEMPORAL_PROFILE; TEMPORAL_UI_URL for links to the Temporal UI.
Encryption: CAIRN_CODEC_KEYS encrypts payloads (docs/encryption.md).

Start here:
  cairn init my-agents && cd my-agents        # a starter project (or write a cairn.config.ts)
  cairn dev                                   # server + worker for your agents; leave it running
  cairn run <agent> "<prompt>"                # in another terminal
  cairn watch <workflowId>`;

/** Runs the CLI on `argv` (without `node cairn`); returns the exit code. Never throws. */
export async function cairn(argv: readonly string[], streams: Streams = process): Promise<number> {
  const [name, ...rest] = argv;
  const io = createIo(name !== undefined && hasFlag(rest, '--json'), streams);
  if (name === undefined) {
    io.error(HELP);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    streams.stdout.write(`${topic && !topic.delegates ? topic.help : HELP}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.error(
      `cairn: unknown command "${name}"; commands: ${COMMANDS.map((c) => c.name).join(', ')} (see cairn --help)`,
    );
    return 2;
  }
  if (!command.delegates && hasFlag(rest, '--help', '-h')) {
    streams.stdout.write(`${command.help}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    io.error(`cairn ${command.name}: ${describeError(error)}`);
    return exitCodeOf(error);
  }
}
