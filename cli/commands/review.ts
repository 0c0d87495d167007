/** `cairn review`: accept, edit, respond to or reject a tool call waiting for a human's review. */
import {
  carriedBy,
  isReviewDecisionType,
  parseReviewDecision,
  REVIEW_DECISIONS,
  type ReviewDecisionInput,
} from '../../shared/human-input/review-decision.js';
import { parseCommandLine, type Command } from '../command.js';
import { CAIRN } from '../invocation.js';
import { UsageError } from '../errors.js';
import { compact } from '../format.js';
import { parseJsonArgument } from '../json-argument.js';

export const reviewCommand: Command = {
  name: 'review',
  summary: 'Decide a tool call that waits for review',
  help: `Usage: cairn review <workflowId> <toolCallId> <decision>

Decides one tool call the run holds for review (see cairn watch). The decision names the
arguments it was about (their hash, read from the run), so a decision about other arguments is
refused. A closed run (completed, failed, terminated) is named as closed (exit 1).

Decisions:
  accept                    Run the call as it is
  edit '<json args>'        Run it with these arguments instead
  respond '<json content>'  Do not run it; give the model this as its result
  reject [reason]           Do not run it; tell the model why

Options:
  --json      Print one JSON document: { workflowId, toolCallId, tool, argsHash, decision }
  -h, --help  Show this help

Examples:
  cairn review cairn-orders-1a2b3c4d 2.1 accept
  cairn review cairn-orders-1a2b3c4d 2.1 edit '{"orderId":"A-1001","amount":40}'
  cairn review cairn-orders-1a2b3c4d 2.1 reject "refunds over 50 need a manager"`,

  async run(argv, io) {
    const { positionals } = parseCommandLine('review', argv, {
      options: {},
      required: ['workflowId', 'toolCallId', 'decision'],
      optional: ['argument'],
    });
    const [workflowId = '', toolCallId = '', type = '', argument] = positionals;
    const decision = toDecision(type, argument);

    const { cairnClient, whileOpen, withClient, withDeadline } = await import('../run-client.js');
    return withClient(async (connection) => {
      const run = cairnClient(connection).run(workflowId);
      const review = await whileOpen(run, 'review decisions', async () => {
        const held = await withDeadline(connection, workflowId, () => run.pendingReview(toolCallId));
        await withDeadline(connection, workflowId, () => run.review(held, decision));
        return held;
      });
      const what =
        decision.type === 'edit'
          ? `(${review.name}) to ${compact(decision.args, 120)}`
          : `(${review.name} ${compact(review.args, 120)})`;
      io.line(`${PAST[decision.type]} ${toolCallId} ${what} on ${workflowId}.`);
      io.line(`  follow it: ${CAIRN} watch ${workflowId}`);
      io.document({ workflowId, toolCallId, tool: review.name, argsHash: review.argsHash, decision });
      return 0;
    });
  },
};

const PAST: Record<ReviewDecisionInput['type'], string> = {
  accept: 'Accepted',
  edit: 'Edited',
  respond: 'Responded to',
  reject: 'Rejected',
};

/** The decision from the command line: its type, and the argument the type carries (JSON or text), checked by the one parser. */
function toDecision(type: string, argument: string | undefined): ReviewDecisionInput {
  if (!isReviewDecisionType(type))
    throw new UsageError(`unknown decision "${type}"; use ${REVIEW_DECISIONS.join(', ')} (see ${CAIRN} review --help)`);
  const carried = carriedBy(type);
  if (!carried) {
    if (argument !== undefined)
      throw new UsageError(`${type} takes no argument, got "${argument}" (see ${CAIRN} review --help)`);
    return checked({ type });
  }
  if (argument === undefined) {
    if (carried.required)
      throw new UsageError(
        `${type} needs ${carried.what} as ${carried.value === 'json' ? 'JSON' : 'text'} (see ${CAIRN} review --help)`,
      );
    return checked({ type });
  }
  const value = carried.value === 'json' ? parseJsonArgument(argument, `${type} ${carried.name}`) : argument;
  return checked({ type, [carried.field]: value });
}

function checked(decision: unknown): ReviewDecisionInput {
  const parsed = parseReviewDecision(decision);
  if (!parsed.ok) throw new UsageError(parsed.message);
  return parsed.value;
}
