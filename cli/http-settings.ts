/** The HTTP server's settings the CLI names before loading it (help texts, checks). Node-only. */

/** The environment variable holding the bearer token `cairn serve` requires. */
export const HTTP_TOKEN_ENV = 'CAIRN_HTTP_TOKEN';
export const DEFAULT_HTTP_PORT = 8787;

/** True for an address only this machine reaches. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
