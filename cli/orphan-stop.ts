/**
 * `npx cairn worker` (and any `npm exec` / `npm run` of cairn) runs as npm → sh → node. A process
 * manager's SIGTERM reaches npm, which passes it to the shell; the shell dies of it without passing
 * it on, and the worker, orphaned, would poll on. So, started by npm, a lost parent is a SIGTERM:
 * the command stops as it would on the signal itself. A process started otherwise (`nohup cairn
 * worker &`) outlives its shell as it always did. Node-only.
 */

/** How often the parent is looked at: a stop signal is acted on within this. */
const CHECK_MS = 500;

/** When npm started this process, turns the loss of its parent into a SIGTERM to itself. */
export function stopWhenNpmParentIsGone(env: NodeJS.ProcessEnv = process.env): void {
  if (!env.npm_command) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, CHECK_MS);
  timer.unref();
}
