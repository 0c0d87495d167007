/**
 * A store's URL as messages show it: without its password (a message can reach a run's history,
 * its state and every client that reads it). Node-only.
 */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@');
  }
}
