# syntax=docker/dockerfile:1
# Tollway in a container: the server bundle, the npm packages it loads at run time and the built console, run by
# an unprivileged user; data (SQLite file, journal, generated session secret) on the /data volume.
#   docker build -t tollway .
#   docker run -d -p 3000:3000 -v tollway-data:/data --init tollway
# A cluster (two nodes, PostgreSQL, Redis, nginx): deploy/compose.yaml.

# Node.js 24, the LTS line CI runs the whole suite on; both stages use it, so native modules match the runtime.
ARG NODE_VERSION=24

# Build: every dependency (dev ones too), then the console and the server bundle (`npm run build`).
FROM node:${NODE_VERSION}-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY packages/server/package.json packages/server/
COPY packages/web/package.json packages/web/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY scripts scripts
COPY packages/shared packages/shared
COPY packages/server packages/server
COPY packages/web packages/web
RUN npm run build
# The documentation the server serves at /docs (the Markdown as it is; the console renders it).
COPY docs docs

# Run-time packages: the server workspace's production dependencies only (the bundle keeps npm packages external;
# @tollway/shared is inside the bundle, so its workspace link goes; so does the SQLite driver line kept for Node 20).
FROM build AS deps
RUN rm -rf node_modules packages/*/node_modules \
 && npm ci --omit=dev --workspace=@tollway/server --no-audit --no-fund \
 && rm -rf node_modules/@tollway node_modules/better-sqlite3-node20 \
 && mkdir -p packages/server/node_modules

FROM node:${NODE_VERSION}-slim
ENV NODE_ENV=production \
    PORT=3000 \
    SQLITE_PATH=/data/tollway.db \
    DATA_DIR=/data
WORKDIR /app
RUN groupadd --system --gid 10001 tollway \
 && useradd --system --uid 10001 --gid tollway --home-dir /data --no-create-home tollway \
 && mkdir -m 0700 /data \
 && chown tollway:tollway /data
COPY --from=deps /app/node_modules node_modules
COPY --from=deps /app/packages/server/node_modules packages/server/node_modules
COPY --from=build /app/packages/server/dist packages/server/dist
COPY --from=build /app/packages/web/dist packages/web/dist
COPY --from=build /app/docs docs
USER tollway
VOLUME /data
EXPOSE 3000
# Liveness on /healthz; slim images carry no curl, Node's fetch asks instead.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm start` runs once the bundle is built (scripts/start.mjs); the Dockerfile test keeps the two equal.
CMD ["node", "--enable-source-maps", "/app/packages/server/dist/main.mjs"]
