import { describe, expect, it } from 'vitest';
import { toolError } from '../failures/tool-error.js';
import { NO_TELEMETRY, errorResult, failureCode, failureReason, type ToolResult } from './tool-result.js';

const call = { name: 'search_orders', toolCallId: '1.1' };

describe('failure code and reason of a result', () => {
  it('are undefined for a success, and the validator row for a validator refusal', () => {
    const ok: ToolResult = { ...call, status: 'ok', result: 1, telemetry: NO_TELEMETRY };
    expect([failureCode(ok), failureReason(ok)]).toStrictEqual([undefined, undefined]);
    const refused: ToolResult = {
      ...call,
      status: 'validator_failed',
      validator: 'in_stock',
      feedback: 'no',
      telemetry: NO_TELEMETRY,
    };
    expect([failureCode(refused), failureReason(refused)]).toStrictEqual(['validator_failed', 'validation_failed']);
  });

  it("take an error's reason from its hint when it has one, else from the taxonomy", () => {
    const built = errorResult(call, toolError('rate_limited', 'slow down'), { retryAfterMs: 5 });
    expect(built.retryHint).toStrictEqual({ reason: 'rate_limited', tool: 'search_orders', retryAfterMs: 5 });
    // A result recorded with another reason (read back from history) keeps it.
    const recorded: ToolResult = { ...built, retryHint: { reason: 'timeout', tool: 'search_orders' } };
    expect([failureCode(recorded), failureReason(recorded)]).toStrictEqual(['rate_limited', 'timeout']);
    const { retryHint: _hint, ...noHint } = built;
    expect(failureReason(noHint)).toBe('rate_limited');
  });

  it('lets no caller choose the reason or tool of the hint it builds', () => {
    const built = errorResult(call, toolError('timeout', 'slow'), { reason: 'rejected', tool: 'other' } as never);
    expect(built.retryHint).toMatchObject({ reason: 'timeout', tool: 'search_orders' });
    expect(built).not.toHaveProperty('partialResult');
    expect(built.telemetry).toBe(NO_TELEMETRY);
  });
});
