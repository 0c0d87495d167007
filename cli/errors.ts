/**
 * CLI errors and how any error becomes the one line the CLI prints. Temporal's client errors are
 * recognised by `name` (the SDK marks them with symbols; class identity is not relied on).
 * Node-only.
 */

/** A failure the CLI reports as one line on stderr, with its exit code (1 by default). */
export class CliError extends Error {
  override readonly name: string = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = 1,
  ) {
    super(message);
  }
}

/** A wrong command line: unknown command or flag, missing or malformed argument. Exit code 2. */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
  constructor(message: string) {
    super(message, 2);
  }
}

interface ErrorShape {
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  workflowId?: unknown;
  code?: unknown;
}

/** The exit code for a thrown value: a CliError's own, else 1. */
export function exitCodeOf(error: unknown): number {
  return error instanceof CliError ? error.exitCode : 1;
}

/** One line describing `error`, for stderr: never a stack trace. */
export function describeError(error: unknown): string {
  return oneLine(describe(error));
}

function describe(error: unknown): string {
  if (error instanceof CliError) return error.message;
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorShape;
  const message = typeof e.message === 'string' && e.message ? e.message : String(error);
  switch (e.name) {
    case 'WorkflowNotFoundError':
      return `No run with workflow id "${String(e.workflowId)}".`;
    case 'WorkflowExecutionAlreadyStartedError':
      return `A run with workflow id "${String(e.workflowId)}" already exists; pick another --id.`;
    case 'WorkflowUpdateFailedError':
      return `The run refused the update: ${rootMessage(e.cause) ?? message}`;
    case 'WorkflowFailedError':
      return `The run failed: ${rootMessage(e.cause) ?? message}`;
    case 'QueryNotRegisteredError':
      return `The run does not answer Cairn's queries (is it an agentRun workflow?): ${message}`;
    case 'NamespaceNotFoundError':
      return `Unknown Temporal namespace: ${message}`;
    default:
      // Payloads written by a worker with CAIRN_CODEC_KEYS, read without them (docs/encryption.md).
      if (/binary\/encrypted/.test(message))
        return `${message} (the run's payloads are encrypted: set CAIRN_CODEC_KEYS to the workers' keys)`;
      return message;
  }
}

/** Why a run's result failed: the innermost cause's message (the failure's own reason), on one line. */
export function failureReason(error: unknown): string {
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorShape;
  return oneLine(rootMessage(e.cause) ?? (typeof e.message === 'string' ? e.message : String(error)));
}

/** The message of the innermost cause that has one (a failure's own reason). */
function rootMessage(error: unknown): string | undefined {
  let found: string | undefined;
  const seen = new Set<unknown>();
  for (
    let link = error as ErrorShape | undefined;
    link && typeof link === 'object' && !seen.has(link);
    link = link.cause as ErrorShape | undefined
  ) {
    seen.add(link);
    if (typeof link.message === 'string' && link.message) found = link.message;
  }
  return found;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
