import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { DeploymentError, setCurrentBuild } from './deployments.js';

/** A client whose server refuses a promotion with `code` and `details`, as gRPC does. */
const refusing = (code: number, details: string) =>
  ({
    options: { namespace: 'default' },
    workflowService: {
      setWorkerDeploymentCurrentVersion: () =>
        Promise.reject(Object.assign(new Error(`${code} X: ${details}`), { code, details })),
    },
  }) as unknown as Client;

const promote = { deploymentName: 'shop', buildId: 'b2' };

describe('a promotion the server refuses', () => {
  it('is a DeploymentError with a stable code and what to do', async () => {
    const unpolled = await setCurrentBuild(refusing(9, 'no pollers for version b2'), promote).catch((e: unknown) => e);
    expect(unpolled).toBeInstanceOf(DeploymentError);
    expect(unpolled).toMatchObject({
      code: 'build_not_polled',
      message: expect.stringContaining('cairn worker --deployment-name shop --build-id b2'),
    });
    const refused = await setCurrentBuild(refusing(9, 'a ramp is in progress'), promote).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'promotion_refused',
      message: expect.stringContaining('a ramp is in progress'),
    });
  });

  it('passes on what is not a refusal (the server unreachable)', async () => {
    const down = await setCurrentBuild(refusing(14, 'connection refused'), promote).catch((e: unknown) => e);
    expect(down).not.toBeInstanceOf(DeploymentError);
  });
});
