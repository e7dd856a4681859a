# One image for every process of the service; the command picks the role. Compiled JavaScript
# (`npm run build`, docs/decisions/platform.md "One dist layout"), started with node alone:
#   API:     node dist/src/api/server.js      (default; listens on $PORT, 3000)
#   worker:  node dist/src/worker.js          (Temporal workflows, prebundled, and activities)
#   migrate: node dist/src/db/migrate-cli.js  (one-shot: creates the database if missing, applies migrations)
#   CLIs:    node dist/src/cli/index.js …, node dist/src/connector-client/cli.js …
#
# Debian (glibc) rather than Alpine: the Temporal worker's native core bridge ships glibc builds.

# Stage 1: every dependency (TypeScript, the workflow bundler), then the build: dist/.
# test/integration/production-build.test.ts runs the same build and starts its outputs.
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
RUN npm run build

# Stage 2: the runtime image, with the runtime dependencies only and the built tree.
FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# bubblewrap: the OS sandbox around submitted code (the worker refuses to start without it);
# python3-seccomp compiles its syscall allow-list at start; util-linux provides prlimit, setpriv
# and flock. The worker container needs user namespaces and a writable cgroup
# (see docs/decisions/security.md, "Submitted code behind an OS wall").
# The program judge's languages, from Debian at fixed paths (scripts/lib.sh lists them): python3,
# gcc/g++, golang-go (/usr/lib/go-*), rustc, openjdk-17; the image's node is /usr/local/bin/node,
# so Debian's nodejs (/usr/bin/node) runs JavaScript and TypeScript submissions.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap python3 python3-seccomp util-linux \
      gcc g++ libc6-dev golang-go rustc openjdk-17-jdk-headless nodejs \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first, so that source edits do not invalidate this layer; runtime ones only.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY --from=build /app/dist ./dist
COPY temporal ./temporal

# Inside a container the API must listen on every interface (the app's default is 127.0.0.1).
ENV HOST=0.0.0.0 \
    PORT=3000

USER node
EXPOSE 3000

# No HEALTHCHECK here: the worker serves no HTTP; docker-compose.yml checks the API's /healthz.

CMD ["node", "--max-semi-space-size=64", "--initial-old-space-size=256", "dist/src/api/server.js"]
