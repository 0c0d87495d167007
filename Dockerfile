# The Cairn worker image: Node 24, the project's locked dependencies, `cairn worker` as the command.
# Configured by environment only (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, model keys): see docs/docker.md.
FROM node:24-slim

WORKDIR /app

# Dependencies first, so that a code change does not reinstall them. Dev dependencies are kept:
# the worker runs the TypeScript sources through tsx.
COPY package.json package-lock.json ./
RUN npm ci && npm cache clean --force

COPY . .

USER node
# bin/cairn.js runs the CLI in this process, so SIGTERM from `docker stop` reaches the worker,
# which drains and exits.
CMD ["node", "bin/cairn.js", "worker"]
