/** A failure that outlived Temporal's retries, as the workflow records it. */
import { describe, expect, it } from 'vitest';
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
  defaultFailureConverter,
  defaultPayloadConverter,
} from '@temporalio/common';
import { resultAfterRetries } from './after-retries.js';
import { fromError, toolError } from './tool-error.js';
import { FAILURES } from './failure-taxonomy.js';

const call = { name: 'issue_refund', toolCallId: '2.1' };
const afterActivity = (cause: Error) =>
  resultAfterRetries(
    call,
    fromError(
      new ActivityFailure('Activity task failed', 'runTool', '2', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause),
    ),
  );

describe('resultAfterRetries', () => {
  it('a cancelled activity is cancelled, not a tool failure', () => {
    expect(afterActivity(new CancelledFailure('Activity cancelled'))).toMatchObject({
      error: { code: 'cancelled', kind: 'policy' },
      retryHint: { reason: 'cancelled', tool: 'issue_refund' },
    });
  });

  it('a timeout stays a timeout', () => {
    expect(afterActivity(new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE))).toMatchObject({
      error: { code: 'timeout' },
      retryHint: { reason: 'timeout' },
    });
  });

  it('an ApplicationFailure typed with a Cairn code keeps its code and message', () => {
    const result = afterActivity(
      ApplicationFailure.create({ message: 'amount must be positive', type: 'invalid_arguments', nonRetryable: true }),
    );
    expect(result).toMatchObject({
      error: { code: 'invalid_arguments', message: 'amount must be positive' },
      retryHint: { reason: 'invalid_arguments' },
    });
  });

  it('a tool that kept throwing is an internal_error naming what it threw, not a disabled tool', () => {
    const result = afterActivity(ApplicationFailure.create({ message: 'rows is undefined', type: 'internal_error' }));
    expect(result).toMatchObject({
      error: {
        code: 'internal_error',
        message: 'issue_refund threw: rows is undefined',
        cause: { name: 'ActivityFailure' },
      },
      retryHint: { reason: 'internal_error' },
    });
    // An internal error that no thrown error named (recorded by the workflow itself) is told as it is.
    expect(resultAfterRetries(call, toolError('internal_error', 'lost the worker')).error.message).toBe(
      'issue_refund threw: lost the worker',
    );
  });
});

describe('resultAfterRetries for once tools', () => {
  const onceAfter = (cause: Error) =>
    resultAfterRetries(
      call,
      fromError(
        new ActivityFailure(
          'Activity task failed',
          'runTool',
          '2',
          RetryState.MAXIMUM_ATTEMPTS_REACHED,
          'worker',
          cause,
        ),
      ),
      'once',
    );

  it.each([
    [
      'a start-to-close timeout (the worker died)',
      new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE),
    ],
    ['a heartbeat timeout', new TimeoutFailure('timed out', undefined, TimeoutType.HEARTBEAT)],
    ['a schedule-to-close timeout', new TimeoutFailure('timed out', undefined, TimeoutType.SCHEDULE_TO_CLOSE)],
    ['a crash', ApplicationFailure.create({ message: 'socket hang up', type: 'internal_error' })],
  ])('%s is outcome_unknown: the model must not retry blindly', (_label, cause) => {
    const result = onceAfter(cause);
    expect(result).toMatchObject({
      error: { code: 'outcome_unknown', kind: 'indeterminate' },
      retryHint: { reason: 'outcome_unknown', tool: 'issue_refund' },
    });
    expect(result.error.message).toMatch(/whether it took effect is unknown\. Do not call it again to find out/);
  });

  it('a schedule-to-start timeout is a timeout: the attempt never started', () => {
    expect(onceAfter(new TimeoutFailure('not picked up', undefined, TimeoutType.SCHEDULE_TO_START)).error.code).toBe(
      'timeout',
    );
  });

  it('a code the tool typed itself, and a cancel, keep their meaning', () => {
    expect(
      onceAfter(ApplicationFailure.create({ message: 'card declined', type: 'invalid_arguments', nonRetryable: true }))
        .error.code,
    ).toBe('invalid_arguments');
    const cancelled = onceAfter(new CancelledFailure('Activity cancelled'));
    expect(cancelled.error.code).toBe('cancelled');
    expect(cancelled.error.message).toContain('Whether it took effect before the cancel is unknown.');
  });

  it('tools with other side effects are unchanged', () => {
    const timeout = new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE);
    const wrapped = fromError(
      new ActivityFailure(
        'Activity task failed',
        'runTool',
        '2',
        RetryState.MAXIMUM_ATTEMPTS_REACHED,
        'worker',
        timeout,
      ),
    );
    expect(resultAfterRetries(call, wrapped, 'idempotent').error.code).toBe('timeout');
    expect(resultAfterRetries(call, wrapped).error.code).toBe('timeout');
  });
});

describe('what the model is told after the retries', () => {
  const told = (cause: Error, sideEffects?: 'once') =>
    resultAfterRetries(
      call,
      fromError(
        new ActivityFailure(
          'Activity task failed',
          'runTool',
          '2',
          RetryState.MAXIMUM_ATTEMPTS_REACHED,
          'worker',
          cause,
        ),
      ),
      sideEffects,
    );
  const startToClose = () => new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE);
  const crash = () => ApplicationFailure.create({ message: 'socket hang up', type: 'internal_error' });

  it.each([
    [
      'a cancel',
      () => told(new CancelledFailure('Activity cancelled')),
      'issue_refund was cancelled before it finished; the tool is not at fault.',
    ],
    [
      'a cancel of a once tool',
      () => told(new CancelledFailure('Activity cancelled'), 'once'),
      'issue_refund was cancelled before it finished; the tool is not at fault. Whether it took effect before the cancel is unknown.',
    ],
    ['a timeout', () => told(startToClose()), 'issue_refund did not answer in time.'],
    ['a crash', () => told(crash()), 'issue_refund threw: socket hang up'],
    [
      'a timeout of a once tool',
      () => told(startToClose(), 'once'),
      'issue_refund timed out (its worker may have died) before reporting a result, so whether it took effect is unknown. Do not call it again to find out: check its effect another way, or ask the user.',
    ],
    [
      'a crash of a once tool',
      () => told(crash(), 'once'),
      'issue_refund crashed before reporting a result, so whether it took effect is unknown. Do not call it again to find out: check its effect another way, or ask the user.',
    ],
  ])('%s: one plain sentence, in the error and in the retry hint', (_label, result, message) => {
    const { error, retryHint } = result();
    expect(error.message).toBe(message);
    expect(retryHint?.message).toBe(message);
  });
});

describe('a Cairn code survives Temporal', () => {
  /** The failure as the workflow receives it: encoded by the worker, decoded in the workflow, wrapped in ActivityFailure. */
  const received = (thrown: Error, retryState: RetryState = RetryState.MAXIMUM_ATTEMPTS_REACHED) => {
    const decoded = defaultFailureConverter.failureToError(
      defaultFailureConverter.errorToFailure(thrown, defaultPayloadConverter),
      defaultPayloadConverter,
    );
    return fromError(new ActivityFailure('Activity task failed', 'runTool', '2.1', retryState, 'worker', decoded));
  };

  it.each([
    'rate_limited',
    'tool_unavailable',
    'invalid_arguments',
    'output_schema_violation',
    'semantic_error',
  ] as const)(
    'an ApplicationFailure typed %s keeps its code through the failure converter and the ActivityFailure',
    (code) => {
      const thrown = ApplicationFailure.create({
        message: `the tool said ${code}`,
        type: code,
        nonRetryable: code !== 'rate_limited',
      });
      const cause = received(
        thrown,
        code === 'rate_limited' ? RetryState.MAXIMUM_ATTEMPTS_REACHED : RetryState.NON_RETRYABLE_FAILURE,
      );
      expect(cause.code).toBe(code);
      expect(cause).toMatchObject({ name: 'ActivityFailure', cause: { name: code, message: `the tool said ${code}` } });
      const result = resultAfterRetries(call, cause);
      expect(result.error).toMatchObject({ code, message: `the tool said ${code}` });
      expect(result.retryHint!.reason).toBe(FAILURES[code].reason);
    },
  );

  it('a Cairn code deeper in the chain (a wrapped cause) is still found', () => {
    const inner = ApplicationFailure.create({ message: 'quota', type: 'rate_limited' });
    const outer = ApplicationFailure.create({ message: 'wrapper', type: 'SomeLibraryError', cause: inner });
    expect(received(outer).code).toBe('rate_limited');
  });
});
