import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { requestDemoApproval } from '../demo/pending-approval.js';
import { runDemo } from '../demo/run-demo.js';
import { AitiaError, isUnavailable } from '../model/index.js';
import { writePrivateFile } from '../model/private-files.js';
import { packageVersion } from '../package-root.js';
import { loadStartupPolicy } from '../policy/startup.js';
import { recordPolicyInForce } from '../services/policy-history.js';
import { startHealthScheduler } from '../scheduler/health-scheduler.js';
import { startSourcePollers } from '../scheduler/source-pollers.js';
import { runUnderLease } from '../scheduler/lease-keeper.js';
import { startApprovalExpiry } from '../scheduler/approval-expiry.js';
import { HEALTH_SCHEDULER_LEASE } from '../model/lease.js';
import { configuredSources } from '../sources-file.js';
import { configuredIntegrations } from '../integrations/integrations-file.js';
import { startNotifications } from '../integrations/notifications-loop.js';
import { startAlertmanagerSilencing } from '../integrations/alertmanager/start.js';
import { createFeedBus, startFeedTail } from '../pipeline/bus.js';
import { createHttpServer, listen } from '../server/http.js';
import { installLastResort } from '../server/process-faults.js';
import { pipelineDeps, type ServiceDeps } from '../services/deps.js';
import { actorMappingSource, warnUnknownActorPrincipals } from '../services/actor-mapping.js';
import { TokenStore } from '../services/token-store.js';
import { createFirstTokens } from '../services/tokens.js';
import { openConfiguredGraph, type CliCommand, type CliContext } from './context.js';

/**
 * The demo keeps to itself: its own embedded Neo4j under $AITIA_DATA_DIR/demo and fresh tokens
 * each run, so it never mixes with a real graph (with NEO4J_URI it writes only the demo's ids).
 */
function demoConfig(config: Config): Config {
  const dataDir = config.neo4j.uri ? config.dataDir : join(config.dataDir, 'demo');
  return { ...config, dataDir, tokensFile: join(dataDir, 'demo-tokens.json') };
}

/** `aitia serve [--demo]`: the GraphQL service, until SIGINT/SIGTERM. */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'run the GraphQL service (default command); --demo first loads and plays the demo homelab',
  usage: 'aitia serve [--demo]',
  async run(args, ctx) {
    const { values } = parseArgs({
      args,
      options: { demo: { type: 'boolean', default: false } },
      allowPositionals: false,
    });
    const demo = values.demo === true;
    const config = demo ? demoConfig(ctx.config) : ctx.config;
    const { log } = ctx;
    // Logs and counts what escaped every handler instead of ending the process (process-faults.ts).
    const lastResort = installLastResort(log);
    // First, before anything opens: the service never starts on a broken policy.
    const policy = await loadStartupPolicy(config.policyFile);
    log.info(
      {
        policy: policy.path,
        digest: policy.digest,
        autoAct: policy.policy.autonomy_settings.global.auto_act,
        suppression: policy.policy.attribution.suppression,
      },
      'policy loaded',
    );
    // The sources file and the single-source variables, validated before anything opens.
    const specs = demo ? [] : configuredSources(config);
    // The integrations file (notification targets, Alertmanager), refused unless owner-only.
    const integrations = configuredIntegrations(config);
    if (demo) rmSync(config.tokensFile, { force: true });
    checkTokensFile(config, demo);
    // Read (and refused unless owner-only) before anything opens; re-read whenever it changes.
    const tokens = new TokenStore(config.tokensFile, { log });
    const graph = await (demo ? openConfiguredGraph(config, log) : ctx.openGraph());
    // One bus per process, fed from the store (the feed), read by the API's subscriptions.
    const bus = createFeedBus();
    // While Neo4j is unavailable the driver logs the outage once; the tail just tries again.
    const tail = startFeedTail(graph.driver, bus, {
      onError: (err) => void (isUnavailable(err) || log.warn({ err }, 'feed tail: read failed')),
    });
    // Health checks never probe aitia's own Neo4j (its Bolt port and the HTTP one beside it) nor,
    // unless AITIA_CHECK_ALLOW names them, loopback, link-local or metadata addresses.
    const neo4jUrl = new URL(graph.uri.replace(/^[a-z+]+:/, 'http:'));
    const checkNetwork = {
      allow: config.checkAllow,
      protectedEndpoints: [Number(neo4jUrl.port || 7687), 7474].map((port) => ({ host: neo4jUrl.hostname, port })),
    };
    // Provider identities of agents (`actors:`), resolved against the tokens at each pass.
    const actors = integrations.actors.length > 0 ? actorMappingSource(integrations.actors, tokens) : undefined;
    if (actors) warnUnknownActorPrincipals(actors, log);
    const deps: ServiceDeps = {
      ...(actors ? { actors } : {}),
      checkNetwork,
      driver: graph.driver,
      log,
      version: packageVersion(),
      policy,
      clockSkewSeconds: config.clockSkewSeconds,
      bus,
      tokens,
    };
    const created = await createFirstTokens(deps, demo ? 'demo' : 'dev');
    printTokens(config, ctx, demo, created);
    // A policy file changed since the last start is audited with both digests and what changed.
    const previous = await recordPolicyInForce(deps);
    if (previous && previous.digest !== policy.digest) {
      log.warn({ before: previous.digest, after: policy.digest }, 'policy changed since the last start');
    }
    // What every observation needs, built once from the same deps the API serves with.
    const pipeline = pipelineDeps(deps);
    if (demo) {
      await runDemo(pipeline, { print: ctx.print, ownDatabase: !config.neo4j.uri });
      // The loop left open for the console: the demo's agent asks to start build02.
      await requestDemoApproval(deps, 'demo-agent', ctx.print);
    }
    // vCenters whose broker may push CloudEvents, by source name (HMAC secret from the sources file).
    const pushSources = new Map(
      specs.flatMap((s) =>
        s.kind === 'vcenter' ? [[s.name, { server: s.server, secret: s.pushSecret }] as const] : [],
      ),
    );
    const server = createHttpServer(deps, tokens, {
      maxBodyBytes: config.maxBodyBytes,
      corsOrigins: config.corsOrigins,
      pushSources,
      // Once listening, the console's queries run in the background, so its first page is not slow.
      warmUp: true,
      // Alertmanager's webhook receiver maps alerts by the same labels the silences use.
      alertReceiver: {
        labels: integrations.alertmanager?.labels ?? {},
        secret: integrations.alertmanager?.receiverSecret ?? null,
      },
    });
    const bound = await listen(server, config.host, config.port);
    log.info(
      { url: `${bound.url}/graphql`, neo4j: graph.uri, via: graph.via, tokens: tokens.size, demo },
      'aitia listening',
    );
    ctx.print(
      `aitia: GraphQL at ${bound.url}/graphql (GraphiQL in a browser), health ${bound.url}/healthz, ready ${bound.url}/readyz`,
    );
    if (demo) {
      ctx.print(
        `aitia: console at ${bound.url}/console — sign in with the operator token: ${created?.operator ?? '(see above)'}`,
      );
      ctx.print('aitia: demo loaded — try docs/tutorial.md with the agent token above (Ctrl-C to stop)');
    }
    // Replicas share one Neo4j: each leader-only loop runs under a lease named in the graph, so one
    // replica polls each source and one runs the health checks (docs/operations.md, "Running more than one").
    const lease = { holder: config.replicaId, seconds: config.leaseSeconds };
    log.info({ replica: lease.holder, leaseSeconds: lease.seconds }, 'replica: leader-only loops run under leases');
    // Every configured source (sources file and single-source variables), each on its own timer:
    // provider pass → attributed transitions, published to subscribers; identity links after each complete pass.
    const sources = demo
      ? null
      : await startSourcePollers({
          deps: pipeline,
          specs,
          log,
          tuning: {
            configRefreshSeconds: config.proxmox.configRefreshSeconds,
            agentSeconds: config.proxmox.agentSeconds,
            maxConcurrentRequests: config.proxmox.maxConcurrentRequests,
            maxAnswerBytes: config.proxmox.maxAnswerBytes,
          },
          lease,
        });
    // Health checks: the only writer of health (checks due every tick of 10 s, 8 probes at a time, K = 3).
    // Under its lease too: one replica runs the checks, its writes fenced.
    const health = runUnderLease({
      driver: graph.driver,
      name: HEALTH_SCHEDULER_LEASE,
      lease,
      log,
      start: (driver) =>
        startHealthScheduler({
          driver,
          log,
          tickSeconds: 10,
          concurrency: 8,
          k: 3,
          historySize: 20,
          conditions: pipeline.conditions,
          network: checkNetwork,
        }),
    });
    // Pending approvals past expiresAt are marked expired once, each on the feed (leader only).
    const expiry = startApprovalExpiry({ driver: graph.driver, lease, log });
    // Notifications out: the stored feed to the integrations file's targets, from the leader only.
    const notifications = startNotifications({
      driver: graph.driver,
      integrations,
      publicUrl: config.publicUrl,
      lease,
      log,
      // Woken by the feed tail as entries are stored, so a change reaches people within a tail tick.
      wake: bus,
    });
    // Alertmanager silences for intentional changes, from the same feed, on the leader only.
    const silencing = startAlertmanagerSilencing({
      driver: graph.driver,
      log,
      spec: integrations.alertmanager,
      policy,
      lease,
    });
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    log.info('shutting down');
    await health.stop();
    await expiry.stop();
    await notifications.stop();
    await silencing.stop();
    await tail.stop();
    await sources?.stop();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await graph.close();
    lastResort();
    return 0;
  },
};

/**
 * The tokens file must be a file; with NEO4J_URI (outside the demo) it must exist, since the first
 * tokens are only created for the embedded default and the demo.
 */
function checkTokensFile(config: Config, demo: boolean): void {
  if (existsSync(config.tokensFile)) {
    // Docker creates a directory where a bind-mounted file did not exist yet.
    if (statSync(config.tokensFile).isDirectory()) {
      throw new AitiaError(
        'BAD_USER_INPUT',
        `AITIA_TOKENS_FILE: ${config.tokensFile} is a directory, not a tokens file; remove it and create the file with: aitia tokens add --name <name> --role operator`,
      );
    }
    return;
  }
  if (config.neo4j.uri && !demo) {
    throw new AitiaError(
      'BAD_USER_INPUT',
      `AITIA_TOKENS_FILE: no tokens file at ${config.tokensFile}; create one with: aitia tokens add --name <name> --role operator (with Docker: docker compose run --rm aitia tokens add --name <name> --role operator)`,
    );
  }
}

/** Where a new data dir's first tokens are written (owner-only), never to the log or the terminal. */
export const FIRST_START_TOKENS = 'first-start-tokens.txt';

/**
 * A new data dir's first tokens: written to an owner-only file in the data dir, whose path is
 * printed (output goes to Docker logs and journald, which others read). The demo, a local
 * walkthrough with throwaway tokens, prints them as before.
 */
export function printTokens(
  config: Config,
  ctx: Pick<CliContext, 'print'>,
  demo: boolean,
  created: Record<string, string> | null,
): void {
  if (!created) return;
  const lines = [
    `  agent token:     ${created.agent}`,
    `  operator token:  ${created.operator}`,
    `  scheduler token: ${created.scheduler}`,
    `  ingester token:  ${created.ingester}`,
  ];
  if (demo) {
    ctx.print(
      `aitia: created demo tokens in ${config.tokensFile} (only their SHA-256 is stored; they are shown once):`,
    );
    for (const line of lines) ctx.print(line);
    return;
  }
  const file = join(config.dataDir, FIRST_START_TOKENS);
  writePrivateFile(
    file,
    [
      `# aitia: the first tokens of ${config.tokensFile}, created ${new Date().toISOString()}.`,
      '# Only their SHA-256 is stored there; keep what you need somewhere safe, then delete this file.',
      ...lines.map((l) => l.trim()),
      '',
    ].join('\n'),
    'the first-start tokens file',
  );
  ctx.print(
    `aitia: created dev tokens in ${config.tokensFile}; the tokens themselves (agent, operator, scheduler, ingester) are in ${file} (owner-only): read it once, keep them somewhere safe, then delete it`,
  );
}
