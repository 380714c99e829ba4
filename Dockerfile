# aitia service image. Needs a Neo4j 5.26 reachable at NEO4J_URI (see docker-compose.yml);
# the embedded Neo4j is for machines without Docker and is not part of this image.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json vitest.config.ts ./
COPY scripts ./scripts
COPY schema ./schema
COPY src ./src
COPY resolvers ./resolvers
COPY correlator ./correlator
COPY test ./test
COPY bench ./bench
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    AITIA_HOST=0.0.0.0 \
    AITIA_PORT=4000 \
    AITIA_DATA_DIR=/data \
    AITIA_TOKENS_FILE=/config/tokens.json
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/vendor ./vendor
COPY schema ./schema
COPY policy ./policy
COPY demo ./demo
USER node
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=5s --retries=5 CMD node -e "fetch('http://127.0.0.1:'+(process.env.AITIA_PORT||4000)+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["serve"]
