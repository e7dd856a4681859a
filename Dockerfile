# One image for every process of the service; the command picks the role:
#   API:     npm run api        (default; listens on $PORT, 3000)
#   worker:  npm run worker     (Temporal workflows and activities)
#   migrate: npm run migrate    (one-shot: creates the database if missing, applies migrations)
#
# Debian (glibc) rather than Alpine: the Temporal worker's native core bridge ships glibc builds.
FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# bubblewrap: the OS sandbox around submitted code (the worker refuses to start without it);
# util-linux provides prlimit and setpriv. The worker container needs user namespaces
# (see docs/decisions/security.md, "Submitted code behind an OS wall").
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap util-linux \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first, so that source edits do not invalidate this layer. Runtime dependencies
# only: TypeScript runs through tsx (a runtime dependency), so there is no build step.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY temporal ./temporal

# Inside a container the API must listen on every interface (the app's default is 127.0.0.1).
ENV HOST=0.0.0.0 \
    PORT=3000

USER node
EXPOSE 3000

# No HEALTHCHECK here: the worker serves no HTTP; docker-compose.yml checks the API's /healthz.

CMD ["npm", "run", "api"]
