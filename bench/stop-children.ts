/**
 * Stops a bench's child processes: SIGTERM to each still running (but those `spare` names, such as
 * one the bench killed itself), then waits until every one has exited. Node-only.
 */
import type { ChildProcess } from 'node:child_process';

export async function stopChildren(
  children: readonly ChildProcess[],
  spare: (child: ChildProcess) => boolean = () => false,
): Promise<void> {
  for (const child of children) if (child.exitCode === null && !spare(child)) child.kill('SIGTERM');
  await Promise.all(
    children.map((child) =>
      child.exitCode === null && child.signalCode === null
        ? new Promise((resolve) => child.once('exit', resolve))
        : undefined,
    ),
  );
}
