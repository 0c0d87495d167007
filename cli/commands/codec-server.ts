/** `cairn codec-server`: decrypts payloads for the Temporal UI and the `temporal` CLI, until Ctrl-C. */
import { parseCommandLine, parsePort, type Command } from '../command.js';
import { CliError } from '../errors.js';

export const codecServerCommand: Command = {
  name: 'codec-server',
  summary: 'Serve /encode and /decode with your CAIRN_CODEC_KEYS, for the Temporal UI and CLI (Ctrl-C to stop)',
  help: `Usage: cairn codec-server [--port 8888] [--host 127.0.0.1] [--origin <url>]...

A codec server for encrypted payloads (docs/encryption.md): POST /encode and POST /decode run
payloads through the AES-256-GCM codec that CAIRN_CODEC_KEYS configures, in Temporal's
codec-server JSON format, until SIGINT/SIGTERM. Point the Temporal UI at it (its codec endpoint
setting, or \`temporal server start-dev --ui-codec-endpoint <url>\`), or the CLI:
\`temporal workflow show --workflow-id <id> --codec-endpoint <url>\`.

Options:
  --port <port>   Port to listen on (default 8888; 0 for a free one)
  --host <host>   Interface to listen on (default 127.0.0.1, this machine only)
  --origin <url>  A browser origin allowed to call it (CORS), repeatable (default
                  http://localhost:8233, the dev server's UI); * allows any
  --json          Print one JSON line once listening: { url, port, origins, keyIds, auth }
  -h, --help      Show this help

Environment:
  CAIRN_CODEC_KEYS  Required: id:<base64 of 32 bytes>, comma-separated, the current key first
  CAIRN_CODEC_AUTH  The exact Authorization header value requests must carry (401 otherwise);
                    e.g. "Bearer <token>" with \`temporal … --codec-auth "Bearer <token>"\``,

  async run(argv, io) {
    const { values } = parseCommandLine('codec-server', argv, {
      options: { port: { type: 'string' }, host: { type: 'string' }, origin: { type: 'string', multiple: true } },
      required: [],
    });
    const { CODEC_AUTH_ENV, DEFAULT_CODEC_PORT, DEFAULT_UI_ORIGIN, startCodecServer } = await import(
      '../../runtime/codec-server.js'
    );
    const { CODEC_KEYS_ENV, codecFromEnvironment } = await import('../../runtime/payload-codec.js');
    const port = values.port === '0' ? 0 : parsePort('port', values.port, DEFAULT_CODEC_PORT);
    let codec;
    try {
      codec = codecFromEnvironment();
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    if (!codec)
      throw new CliError(
        `${CODEC_KEYS_ENV} is not set: give the keys your workers encrypt with ("id:<base64 of 32 bytes>,…", the current key first).`,
      );
    const authorization = process.env[CODEC_AUTH_ENV] || undefined;
    const origins = values.origin?.length ? values.origin : [DEFAULT_UI_ORIGIN];
    let server;
    try {
      server = await startCodecServer({
        codecs: [codec],
        port,
        host: values.host,
        origins,
        authorization,
        log: (line) => io.error(line),
      });
    } catch (error) {
      throw new CliError(`Cannot listen on ${values.host ?? '127.0.0.1'}:${port}: ${(error as Error).message}`);
    }
    io.line(
      `Codec server ${server.url} (keys ${codec.keyIds.join(', ')}; encrypting with ${codec.currentKeyId}), allowing ${origins.join(', ')}${authorization ? `, requiring the ${CODEC_AUTH_ENV} Authorization header` : ''}. Ctrl-C to stop.`,
    );
    io.line(
      `  try: temporal workflow show --workflow-id <id> --codec-endpoint ${server.url}${authorization ? ' --codec-auth "$CAIRN_CODEC_AUTH"' : ''}`,
    );
    io.document({
      url: server.url,
      port: server.port,
      origins,
      keyIds: codec.keyIds,
      auth: authorization !== undefined,
    });
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    return 0;
  },
};
