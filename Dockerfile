# syntax=docker/dockerfile:1
# The gatehouse CLI (with the reference server) as a container image:
#
#   docker build -t gatehouse .
#   docker run --rm -v "$PWD:/work" --user "$(id -u):$(id -g)" \
#     -e GATEHOUSE_API_URL -e GATEHOUSE_API_KEY gatehouse plan manifests
#   docker run --rm -p 8484:8484 -v gatehouse-data:/data gatehouse serve --host 0.0.0.0
#   docker run --rm -p 9464:9464 -v "$PWD:/work" -e GATEHOUSE_API_URL -e GATEHOUSE_API_KEY \
#     gatehouse watch manifests --self-heal          # metrics on :9464 (examples/watch)
#
# Stage 1 builds the workspace and packs it exactly as npm would publish it; stage 2 installs
# those tarballs (better-sqlite3 is compiled here, with the toolchain); the final stage holds
# Node, the installed packages and git (for `watch --git-pull`), and runs as the unprivileged
# `node` user.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# Dependencies first (a layer that changes only with the lockfile); scripts run once the
# sources are there (the root `prepare` builds them).
COPY package.json package-lock.json ./
COPY schemas/package.json schemas/
COPY packages/client/package.json packages/client/
COPY packages/engine/package.json packages/engine/
COPY packages/server/package.json packages/server/
COPY packages/cli/package.json packages/cli/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# Packed with the packages' own prepack scripts: the CLI's writes its oclif manifest and its
# build-info.json (no commit here: .git is not sent to the build, and `gatehouse version` says so).
RUN npm rebuild better-sqlite3 \
 && npm run build \
 && mkdir /packs \
 && npm pack --workspaces --pack-destination /packs

FROM ${NODE_IMAGE} AS install
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /packs /packs
WORKDIR /opt/gatehouse
RUN echo '{"name":"gatehouse-image","private":true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /packs/*.tgz \
 && npm cache clean --force

FROM ${NODE_IMAGE}
# git and the CA certificates it needs for https:// remotes: `gatehouse watch --git-pull`.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# In a container, `watch` serves /metrics and /healthz on every interface of the container
# (127.0.0.1 would be out of Prometheus' reach); --metrics-addr still chooses.
ENV NODE_ENV=production \
    GATEHOUSE_DB=/data/server.db \
    GATEHOUSE_METRICS_ADDR=:9464
COPY --from=install /opt/gatehouse /opt/gatehouse
RUN ln -s /opt/gatehouse/node_modules/@gatehouse/cli/bin/run.js /usr/local/bin/gatehouse \
 && mkdir -p /data /work \
 && chown node:node /data /work
USER node
WORKDIR /work
VOLUME ["/data"]
EXPOSE 8484 9464
ENTRYPOINT ["gatehouse"]
CMD ["--help"]
