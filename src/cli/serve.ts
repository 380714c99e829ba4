import { existsSync } from 'node:fs';
import { AitiaError } from '../errors.js';
import { packageVersion } from '../package-root.js';
import { loadStartupPolicy } from '../policy/startup.js';
import { createHttpServer, listen } from '../server/http.js';
import { createProxmoxClient } from '../ingest/proxmox/client.js';
import { startProxmoxPoller } from '../scheduler/proxmox-poller.js';
import { startHealthScheduler } from '../scheduler/health-scheduler.js';
import { statePollPass } from '../scheduler/state-poll.js';
import { TokenStore, ensureDevTokens } from '../server/tokens.js';
import type { CliCommand } from './context.js';

/** `aitia serve`: the GraphQL service, until SIGINT/SIGTERM. */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'run the GraphQL service (default command)',
  usage: 'aitia serve',
  async run(_args, ctx) {
    const { config, log } = ctx;
    // First, before anything opens: the service never starts on a broken policy.
    const policy = await loadStartupPolicy(config.policyFile);
    log.info({ policy: policy.path, digest: policy.digest, autoAct: policy.policy.autonomy_settings.global.auto_act, suppression: policy.policy.attribution.suppression }, 'policy loaded');
    if (!existsSync(config.tokensFile)) {
      if (config.neo4j.uri) {
        throw new AitiaError('BAD_USER_INPUT', `AITIA_TOKENS_FILE: no tokens file at ${config.tokensFile}; create one with: aitia tokens add --name <name> --role operator`);
      }
      const dev = ensureDevTokens(config.tokensFile);
      if (dev) {
        ctx.print(`aitia: created dev tokens in ${config.tokensFile} (only their SHA-256 is stored; they are shown once):`);
        ctx.print(`  agent token:    ${dev.agent}`);
        ctx.print(`  operator token: ${dev.operator}`);
        ctx.print(`  scheduler token: ${dev.scheduler}`);
        ctx.print(`  ingester token: ${dev.ingester}`);
      }
    }
    const tokens = new TokenStore(config.tokensFile);
    const graph = await ctx.openGraph();
    const server = createHttpServer({ driver: graph.driver, log, version: packageVersion(), policy }, tokens);
    const bound = await listen(server, config.host, config.port);
    log.info({ url: `${bound.url}/graphql`, neo4j: graph.uri, via: graph.via, tokens: tokens.size }, 'aitia listening');
    ctx.print(`aitia: GraphQL at ${bound.url}/graphql (GraphiQL in a browser), health ${bound.url}/healthz, ready ${bound.url}/readyz`);
    // The Proxmox state poll (tasks → inventory → attributed transitions, published to subscribers).
    const { url: pxUrl, token: pxToken, caFile, insecure, pollSeconds } = config.proxmox;
    const pxClient = pxUrl && pxToken ? createProxmoxClient({ baseUrl: pxUrl, token: pxToken, caFile, insecure }) : null;
    const poller = pxClient
      ? startProxmoxPoller({ driver: graph.driver, client: pxClient, intervalSeconds: pollSeconds, log, run: statePollPass({ log, suppression: policy.policy.attribution.suppression }) })
      : null;
    // Health checks: the only writer of health (checks due every tick of 10 s, 8 probes at a time, K = 3).
    const health = startHealthScheduler({ driver: graph.driver, log, tickSeconds: 10, concurrency: 8, k: 3, historySize: 20 });
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    log.info('shutting down');
    await health.stop();
    await poller?.stop();
    pxClient?.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await graph.close();
    return 0;
  },
};
