/** `promise`, or a rejection with `message` once `ms` passed (the timer is cleared either way). Worker side. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(message)), Math.max(ms, 0))),
  );
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
