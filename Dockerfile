# The Cairn worker image: Node 24, the project's locked dependencies, `cairn worker` as the command.
# Configured by environment only (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, model keys): see docs/docker.md.
FROM node:24-slim

WORKDIR /app

# Dependencies first, so that a code change does not reinstall them. Their scripts wait: the
# package's own `prepare` (the build) needs the sources, copied next.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm cache clean --force

COPY . .
# Compiles to dist/, which bin/cairn.js runs; the worker serves this repository's cairn.config.ts.
RUN npm run build

USER node
# bin/cairn.js runs the CLI in this process, so SIGTERM from `docker stop` reaches the worker,
# which drains and exits.
CMD ["node", "bin/cairn.js", "worker"]
