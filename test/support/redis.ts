/** The Redis the live-delta tests use (REDIS_URL, default local), and whether it answers. */
import { Socket } from 'node:net';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Why Redis at `url` does not answer PING; undefined when it does. */
export async function probeRedis(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (reason?: string) => (socket.destroy(), resolve(reason));
    socket.setTimeout(2_000, () => done(`no answer from ${hostname}:${port || 6379}`));
    socket.once('error', (err) => done(`${hostname}:${port || 6379}: ${err.message}`));
    socket.once('data', (data) =>
      done(
        data.toString().startsWith('+PONG')
          ? undefined
          : `unexpected answer ${JSON.stringify(data.toString().slice(0, 40))}`,
      ),
    );
    socket.connect(Number(port || 6379), hostname, () => socket.write('PING\r\n'));
  });
}
