import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { historyFromJson } from './history-json.js';
import { scheduledBefore } from './lane-position.js';

describe('scheduledBefore', () => {
  it("reads the running activity's place from its run's history, not from the process", async () => {
    const history = historyFromJson(
      JSON.parse(await readFile(join(import.meta.dirname, '../../test/histories/review-accept.json'), 'utf8')),
    );
    // What a new evaluating process has: only the server's history of the lane run.
    const client = { workflow: { getHandle: () => ({ fetchHistory: async () => history }) } } as unknown as Client;
    const place = (activityId: string, match: Parameters<typeof scheduledBefore>[2]) =>
      new MockActivityEnvironment({ activityId }).run(() => scheduledBefore(client, {}, match));
    const isModel = (activity: { activityType: string }) => activity.activityType === 'callModel';
    expect(await place('model:1:1', isModel)).toBe(0);
    expect(await place('model:3:1', isModel)).toBe(2);
    // Asked twice (a retry, or another process after a crash): the same place.
    expect(await place('model:3:1', isModel)).toBe(2);
    expect(await place('tool:1.1:issue_refund:1', (activity) => activity.activityType === 'runTool')).toBe(0);
  });
});
