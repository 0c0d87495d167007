/**
 * The run's push notifications (workflows/contract/status-push.ts): its targets, set and deleted
 * by Update and listed by Query, and one queue per target of the notifications not yet taken.
 * Each change of the run's status (a new key: the status and what is asked) queues the task as it
 * is then for every target; a target's queue is posted in order by the `postRunStatus` activity,
 * retried while the receiver is down (for a day; a receiver that refuses for good is dropped).
 * The agent loop never waits for a receiver: at the end the run waits for the last
 * notifications up to END_WAIT, with its answer already in its state. A new target hears the
 * current status at once. Carried across continue-as-new. Workflow-safe, deterministic.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  log,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { PUSH_REFUSED, type StatusPost } from '../shared/push/status-post.js';
import {
  deletePushTargetUpdate,
  MAX_PUSH_TARGETS,
  pushTargetProblem,
  pushTargetsQuery,
  setPushTargetUpdate,
  type CarriedPush,
  type PushTarget,
} from './contract/status-push.js';
import { a2aTaskJson, CONTEXT_MEMO_KEY } from './contract/a2a-task.js';
import type { RunState } from './contract/run-state.js';
import { statusOfState } from './contract/run-status.js';

const { postRunStatus } = proxyActivities<{ postRunStatus(post: StatusPost): Promise<void> }>({
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '1 day',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [PUSH_REFUSED],
  },
});

/** How long a finished run waits for its last notifications to be taken before it closes anyway. */
export const END_WAIT = '10 minutes';

export class StatusPush {
  #targets: PushTarget[];
  readonly #queues = new Map<string, string[]>();
  readonly #posting = new Set<string>();
  #key: string;

  constructor(carried?: CarriedPush) {
    this.#targets = [...(carried?.targets ?? [])];
    this.#key = carried?.key ?? '';
    for (const [id, bodies] of Object.entries(carried?.queued ?? {})) this.#queues.set(id, [...bodies]);
    for (const target of this.#targets) this.#drain(target);
  }

  /** `current`: the run's state now, for a target that was just set. */
  install(current: () => RunState): void {
    setHandler(
      setPushTargetUpdate,
      (target) => {
        const clean: PushTarget = {
          id: target.id,
          url: target.url,
          ...(target.token !== undefined && { token: target.token }),
          ...(target.authentication && {
            authentication: { scheme: target.authentication.scheme, credentials: target.authentication.credentials },
          }),
        };
        this.#targets = [...this.#targets.filter((t) => t.id !== clean.id), clean];
        const state = current();
        this.#key = keyOf(state);
        this.#queue(clean, bodyOf(state));
        return clean;
      },
      {
        validator: (target) => {
          const problem = pushTargetProblem(target);
          if (problem) throw ApplicationFailure.nonRetryable(problem, 'invalid_push_target');
          if (this.#targets.length >= MAX_PUSH_TARGETS && !this.#targets.some((t) => t.id === target.id))
            throw ApplicationFailure.nonRetryable(
              `A run posts to at most ${MAX_PUSH_TARGETS} push targets; delete one first.`,
              'invalid_push_target',
            );
        },
        description: "Post the run's status to this URL at each change (an A2A push notification config).",
      },
    );
    setHandler(
      deletePushTargetUpdate,
      (id) => {
        const had = this.#targets.some((t) => t.id === id);
        this.#targets = this.#targets.filter((t) => t.id !== id);
        this.#queues.delete(id);
        return had;
      },
      {
        validator: (id) => {
          if (typeof id !== 'string' || id.length === 0 || id.length > 128)
            throw ApplicationFailure.nonRetryable("A push target's id is 1 to 128 characters.", 'invalid_push_target');
        },
      },
    );
    setHandler(pushTargetsQuery, () => this.#targets);
  }

  /** When the run's status changed (`state`: read only when the run has targets), queues the task for every target. */
  publish(state: () => RunState): void {
    if (this.#targets.length === 0) return;
    const now = state();
    const key = keyOf(now);
    if (key === this.#key) return;
    this.#key = key;
    const text = bodyOf(now);
    for (const target of this.#targets) this.#queue(target, text);
  }

  /** Every notification queued was taken (or given up). */
  idle(): boolean {
    return this.#posting.size === 0;
  }

  carried(): CarriedPush | undefined {
    if (this.#targets.length === 0) return undefined;
    return { targets: this.#targets, queued: Object.fromEntries(this.#queues), key: this.#key };
  }

  #queue(target: PushTarget, body: string): void {
    const queue = this.#queues.get(target.id) ?? [];
    queue.push(body);
    this.#queues.set(target.id, queue);
    this.#drain(target);
  }

  /** Posts the target's queue in order, one at a time. */
  #drain(target: PushTarget): void {
    if (this.#posting.has(target.id) || !this.#queues.get(target.id)?.length) return;
    this.#posting.add(target.id);
    void (async () => {
      for (;;) {
        const queue = this.#queues.get(target.id);
        const current = this.#targets.find((t) => t.id === target.id);
        if (!queue?.length || !current) break;
        try {
          await postRunStatus({ url: current.url, headers: headersOf(current), body: queue[0]! });
        } catch (error) {
          const cause = error instanceof ActivityFailure ? error.cause : error;
          log.warn('cairn: a push notification was not taken', {
            target: current.id,
            refused: (cause as ApplicationFailure | undefined)?.type === PUSH_REFUSED,
            message: (cause as Error | undefined)?.message,
          });
        }
        queue.shift();
      }
      this.#posting.delete(target.id);
    })();
  }
}

/** The run's status and what it asks: a new key is a change a receiver hears of. */
function keyOf(state: RunState): string {
  const { status, pending } = statusOfState(state);
  return JSON.stringify([
    status,
    pending?.question?.id,
    pending?.reviews.map((r) => `${r.toolCallId} ${r.argsHash}`),
    pending?.budget?.id,
  ]);
}

/** The notification: an A2A StreamResponse holding the task as it is now. */
function bodyOf(state: RunState): string {
  const info = workflowInfo();
  const contextId = info.memo?.[CONTEXT_MEMO_KEY];
  const task = a2aTaskJson({
    ...statusOfState(state),
    taskId: info.workflowId,
    contextId: typeof contextId === 'string' ? contextId : info.workflowId,
    timestamp: new Date(Date.now()).toISOString(),
    messageId: uuid4(),
    metadata: { agent: state.agent, phase: state.phase, turn: state.turn },
  });
  return JSON.stringify({ task });
}

function headersOf(target: PushTarget): Record<string, string> {
  return {
    'content-type': 'application/a2a+json',
    ...(target.token && { 'x-a2a-notification-token': target.token }),
    ...(target.authentication && {
      authorization: `${target.authentication.scheme} ${target.authentication.credentials}`,
    }),
  };
}
