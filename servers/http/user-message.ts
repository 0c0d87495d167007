/**
 * A person's message to a run over HTTP (`POST /runs/:id/messages`, and an AG-UI or chat request
 * that adds a user message to a thread whose run is open and asks nothing: thread.ts `toThread`): `run.send`, its outcome as an
 * HTTP answer. Accepted is 202; refused by the run is 409 (422 for a message it found invalid);
 * throttled by the server is 429; no answer in time is 504 (send again with the same `updateId`:
 * never taken twice). Called through `actOn` (thread.ts), which answers 404 for a run that never was. Node-only (client side).
 */
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { SendOutcome } from '../../client/send-message.js';
import { HttpError, type HttpErrorCode } from './http-error.js';

const REFUSED: Record<Extract<SendOutcome, { status: 'refused' }>['code'], { status: number; code: HttpErrorCode }> = {
  busy: { status: 409, code: 'run_busy' },
  queue_full: { status: 409, code: 'queue_full' },
  finishing: { status: 409, code: 'run_finishing' },
  closed: { status: 409, code: 'run_closed' },
  invalid: { status: 422, code: 'invalid_input' },
};

/** Sends `text` to `run`; the accepted outcome, else the HttpError that says why not. */
export async function deliverMessage(
  run: AgentRunHandle,
  text: string,
  updateId?: string,
): Promise<Extract<SendOutcome, { status: 'accepted' }>> {
  const outcome = await run.send(text, updateId ? { updateId } : {});
  switch (outcome.status) {
    case 'accepted':
      return outcome;
    case 'throttled':
      throw new HttpError(429, 'busy', 'The run is busy; send again shortly.', { 'retry-after': '1' });
    case 'unknown':
      throw new HttpError(
        504,
        'outcome_unknown',
        `No answer from the run in time: send again with updateId "${outcome.updateId}" (never taken twice).`,
      );
    case 'refused': {
      // `closed` covers a run that never was too: `actOn` (thread.ts) tells them apart, once for every act.
      const { status, code } = REFUSED[outcome.code];
      throw new HttpError(status, code, outcome.message);
    }
  }
}
