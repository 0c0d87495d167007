/**
 * One subscription per run per handler instance, shared by every SSE client of that run: a
 * thousand people watching one run cost it one long-poll Update at a time, not a thousand (the
 * server allows only a few Updates in flight per workflow). A feed reads the run's events from
 * the first subscriber's offset and keeps the latest ones; a subscriber asking for an offset the
 * feed does not hold reads on its own. The feed stops when its last subscriber leaves.
 * Node-only (client side).
 */
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { RunEventItem } from '../../client/run-events.js';

const KEPT_EVENTS = 2_000;

interface Feed {
  readonly log: RunEventItem[];
  /** Offsets below this are not in the log (never read, or dropped to keep it bounded). */
  keptFrom: number;
  subscribers: number;
  ended: boolean;
  error?: unknown;
  readonly wake: Set<() => void>;
  readonly abort: AbortController;
}

export class RunFeeds {
  readonly #feeds = new Map<string, Feed>();

  /** The run's events from `from` on, until its `finish` (a run that fails throws), shared with other subscribers. */
  async *events(run: AgentRunHandle, from: number, signal: AbortSignal): AsyncGenerator<RunEventItem, void> {
    let feed = this.#feeds.get(run.workflowId);
    if (feed && from < feed.keptFrom) {
      yield* run.events({ from, signal }); // older than what the feed holds: read on its own
      return;
    }
    feed ??= this.#open(run, from);
    feed.subscribers++;
    try {
      let next = from;
      for (;;) {
        signal.throwIfAborted();
        if (next < feed.keptFrom) {
          // The feed dropped what this subscriber had not read yet: catch up on its own.
          yield* run.events({ from: next, signal });
          return;
        }
        const at = feed.log.findIndex((e) => e.offset >= next);
        if (at >= 0) {
          for (const event of feed.log.slice(at)) {
            yield event;
            next = event.offset + 1;
            if (event.type === 'finish') return;
          }
          continue;
        }
        if (feed.ended) {
          if (feed.error !== undefined) throw feed.error;
          return;
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            feed.wake.delete(done);
            signal.removeEventListener('abort', done);
            resolve();
          };
          feed.wake.add(done);
          signal.addEventListener('abort', done, { once: true });
        });
      }
    } finally {
      if (--feed.subscribers === 0 && this.#feeds.get(run.workflowId) === feed) {
        this.#feeds.delete(run.workflowId);
        feed.abort.abort(new Error('No subscriber left.'));
      }
    }
  }

  #open(run: AgentRunHandle, from: number): Feed {
    const feed: Feed = {
      log: [],
      keptFrom: from,
      subscribers: 0,
      ended: false,
      wake: new Set(),
      abort: new AbortController(),
    };
    this.#feeds.set(run.workflowId, feed);
    const wake = () => {
      for (const w of [...feed.wake]) w();
    };
    void (async () => {
      try {
        for await (const event of run.events({ from, signal: feed.abort.signal })) {
          feed.log.push(event);
          if (feed.log.length > KEPT_EVENTS) {
            feed.log.splice(0, feed.log.length - KEPT_EVENTS);
            feed.keptFrom = feed.log[0]!.offset;
          }
          wake();
        }
      } catch (error) {
        if (!feed.abort.signal.aborted) feed.error = error;
      } finally {
        feed.ended = true;
        if (this.#feeds.get(run.workflowId) === feed) this.#feeds.delete(run.workflowId);
        wake();
      }
    })();
    return feed;
  }
}
