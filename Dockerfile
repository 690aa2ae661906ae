# syntax=docker/dockerfile:1
# The schoolgate server as a container image: `docker build -t schoolgate .`, or `docker compose up` (compose.yaml).
# Three stages: `build` compiles the TypeScript, `dependencies` installs the production dependencies (better-sqlite3
# compiles its native module there, where a C++ toolchain is at hand), and `runtime` (slim, no toolchain, no npm in
# the start command) holds only what the server reads. test/container.test.ts lints this file and runs the runtime
# stage's start command (user, working directory, environment, signals) outside a container.

# ---- build: every dependency, then `npm run build` (dist/)
FROM node:24-bookworm AS build
WORKDIR /app
# The local package (the member API explorer's browser files) must be there before npm ci links it.
COPY package.json package-lock.json ./
COPY packages/graphiql-assets/package.json packages/graphiql-assets/
# No install scripts: compiling needs TypeScript, not the native SQLite module (and `prepare` would compile before
# the sources are copied).
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY bin/ bin/
COPY generated/ generated/
COPY src/ src/
RUN npm run build

# ---- dependencies: production dependencies only, with their install scripts (better-sqlite3's native module)
FROM node:24-bookworm AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/graphiql-assets/package.json packages/graphiql-assets/
# `prepare` runs bin/build.js, which skips compiling when TypeScript is not installed (dist/ comes from `build`).
COPY bin/ bin/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime: what the server reads, owned by root and read-only to the user it runs as
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    SCHOOLGATE_DEMO=false
WORKDIR /app
COPY --from=dependencies /app/node_modules/ node_modules/
COPY --from=dependencies /app/packages/ packages/
COPY --from=build /app/dist/ dist/
COPY package.json ./
COPY bin/ bin/
COPY schema/ schema/
COPY openapi/admin.yaml openapi/
COPY docs/import.schema.json docs/
# data/: the SQLite file and its generated key when no DATABASE_URL is set; secrets/: a key-encryption key file
# (compose.yaml generates one there). Both belong to the user the server runs as.
RUN mkdir -p data secrets && chown 1000:1000 data secrets && chmod 700 data secrets
# The official image's `node` user, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 3000
# Node itself is the probe (the slim image has no curl or wget); /healthz answers for any Host.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM starts the drain (docs/deployment.md): give the container more than SCHOOLGATE_DRAIN_SECONDS to stop.
STOPSIGNAL SIGTERM
# Node is PID 1 and receives the signals itself: no npm and no shell in between.
CMD ["node", "dist/src/main.js"]
