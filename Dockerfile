# aitia service image. Needs a Neo4j 5.26 reachable at NEO4J_URI (see docker-compose.yml);
# the embedded Neo4j is for machines without Docker and is not part of this image.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY schema ./schema
COPY src ./src
COPY resolvers ./resolvers
COPY correlator ./correlator
# The operator console's sources: npm run build bundles them into dist/console/ (console/build.mjs).
COPY console ./console
# Everything the build needs is in node_modules (GraphiQL's assets come from the pinned
# @graphql-yoga/graphiql package, the console's from preact and cytoscape): nothing is fetched
# from the network after npm ci.
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    AITIA_HOST=0.0.0.0 \
    AITIA_PORT=4000 \
    AITIA_DATA_DIR=/data \
    AITIA_TOKENS_FILE=/config/tokens.json
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY schema ./schema
COPY config ./config
COPY recordings ./recordings
# /config holds the tokens file, /data the service's own files. Both belong to the user the
# service runs as (node, uid 1000), so named volumes mounted there start writable by it and
# `docker compose run --rm aitia tokens add …` can create the tokens file.
RUN mkdir -p /config /data && chown node:node /config /data && chmod 0700 /config /data
VOLUME ["/config", "/data"]
USER node
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=5s --retries=5 CMD node -e "fetch('http://127.0.0.1:'+(process.env.AITIA_PORT||4000)+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# A larger young generation: a request allocates much short-lived garbage (rows, GraphQL results);
# measured ~13 % less CPU per request under load (npm run bench:load).
ENTRYPOINT ["node", "--max-semi-space-size=32", "dist/src/main.js"]
CMD ["serve"]
