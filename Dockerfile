# Signal Console server image: the built browser app and server bundle on a production install.
# Build: docker build -t signal-console .   Run: see deploy/compose.yaml.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# What the bundle reads at run time beside itself: migrations, the bundled media and replay news, the
# analyzer's weights and coin list, and the database-creation worker.
COPY --from=build /app/dist ./dist
COPY server/db/migrations ./server/db/migrations
COPY server/db/pglite-create.mjs ./server/db/pglite-create.mjs
COPY server/modules/news/assets ./server/modules/news/assets
COPY server/modules/news/sources/replay.jsonl ./server/modules/news/sources/replay.jsonl
COPY server/modules/analysis/coins.json server/modules/analysis/weights.json ./server/modules/analysis/
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/api/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/server/main.mjs"]
