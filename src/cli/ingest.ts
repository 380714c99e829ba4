import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { AitiaError, ProviderSchema } from '../model/index.js';
import { listMissingResources } from '../graph/resources/staleness.js';
import { resolveManifestsAs } from '../ingest/identity/manifests-as.js';
import { createProxmoxClient } from '../ingest/proxmox/client.js';
import type { IngestReport } from '../ingest/report.js';
import { conditionPolicyOf } from '../pipeline/conditions.js';
import type { CorrelationDeps } from '../pipeline/correlate.js';
import { formatObservation, observe } from '../pipeline/observe.js';
import { proxmoxSource } from '../ingest/proxmox/source.js';
import { vcenterDocumentSource } from '../ingest/vcenter/source.js';
import { configuredIntegrations } from '../integrations/integrations-file.js';
import { loadStartupPolicy } from '../policy/startup.js';
import { actorMappingSource, warnUnknownActorPrincipals } from '../services/actor-mapping.js';
import { TokenStore } from '../services/token-store.js';
import { startObservationPoller } from '../scheduler/poller.js';
import type { CliCommand, CliContext } from './context.js';

const USAGE = [
  'aitia ingest proxmox [--once] [--batch-size <n>] [--concurrency <n>] [--no-agent-ping]',
  'aitia ingest vcenter --file <inventory.json> [--server <name>] [--complete] [--batch-size <n>]',
  'aitia ingest manifests-as',
  'aitia ingest missing [--provider proxmox|vcenter] [--scope <proxmox:cluster>]',
].join('\n       ');

const DEFAULT_SERVER = 'default';

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new AitiaError('BAD_USER_INPUT', `--${name}: must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

/** Prints what was left out and what failed, at most `limit` lines each. */
function printDetails(ctx: CliContext, report: IngestReport, limit = 20): void {
  for (const e of report.errors.slice(0, limit)) ctx.print(`  error   ${e.scope} ${e.path ?? ''} ${e.message}`);
  for (const s of report.skipped.slice(0, limit)) ctx.print(`  skipped ${s.what} ${s.id ?? ''}: ${s.reason}`);
  const hidden = Math.max(0, report.errors.length - limit) + Math.max(0, report.skipped.length - limit);
  if (hidden > 0) ctx.print(`  … ${hidden} more`);
  for (const c of report.stateChanges.slice(0, limit))
    ctx.print(`  changed ${c.id}: ${c.from} → ${c.to} (${c.rawState ?? ''})`);
}

/**
 * The pipeline's settings from the configuration: the policy is loaded once, here (a broken policy
 * stops the command before anything is read), and the clock tolerance comes from the environment.
 */
async function pipelineDeps(ctx: CliContext): Promise<Omit<CorrelationDeps, 'driver'>> {
  const policy = await loadStartupPolicy(ctx.config.policyFile);
  // Agents' changes are checked against their grants here as under `aitia serve`.
  const { actors } = configuredIntegrations(ctx.config);
  const mapping = actors.length > 0 ? actorMappingSource(actors, new TokenStore(ctx.config.tokensFile)) : undefined;
  if (mapping) warnUnknownActorPrincipals(mapping, ctx.log);
  return {
    suppression: policy.policy.attribution.suppression,
    conditions: conditionPolicyOf(policy),
    correlator: { clockSkewSeconds: ctx.config.clockSkewSeconds },
    ...(mapping ? { actors: mapping } : {}),
  };
}

async function proxmox(args: string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      once: { type: 'boolean' },
      'batch-size': { type: 'string' },
      concurrency: { type: 'string' },
      'no-agent-ping': { type: 'boolean' },
    },
  });
  const { url, token, caFile, insecure, pollSeconds } = ctx.config.proxmox;
  if (!url || !token) {
    ctx.print(
      'AITIA_PROXMOX_URL and AITIA_PROXMOX_TOKEN must be set (e.g. https://pve1.lan:8006 and user@realm!tokenid=secret)',
    );
    return 2;
  }
  const sync = {
    batchSize: positiveInt('batch-size', values['batch-size']),
    concurrency: positiveInt('concurrency', values.concurrency),
    agentPing: !values['no-agent-ping'],
    configRefreshSeconds: ctx.config.proxmox.configRefreshSeconds,
    agentSeconds: ctx.config.proxmox.agentSeconds,
    onProgress: (line: string) => ctx.print(line),
  };
  const tasks = { initialLookbackSeconds: ctx.config.proxmox.backfillHours * 3600 };
  if (insecure) ctx.print('warning: AITIA_PROXMOX_INSECURE=true: the Proxmox TLS certificate is not verified');
  const client = createProxmoxClient({
    baseUrl: url,
    token,
    caFile,
    insecure,
    maxConcurrent: ctx.config.proxmox.maxConcurrentRequests,
    maxBodyBytes: ctx.config.proxmox.maxAnswerBytes,
  });
  const deps = await pipelineDeps(ctx);
  const graph = await ctx.openGraph();
  try {
    if (values.once) {
      // One observation: tasks, then inventory, then the transitions the changes became.
      const source = proxmoxSource(client, { tasks, inventory: sync, onTasks: (line) => ctx.print(line) });
      const o = await observe({ ...deps, driver: graph.driver }, source);
      printDetails(ctx, o.extra.tasks);
      printDetails(ctx, o.report);
      for (const line of formatObservation(source, o).slice(1)) ctx.print(line);
      return o.report.complete ? 0 : 1;
    }
    ctx.print(`polling ${url} every ${pollSeconds} s; Ctrl-C stops`);
    const poller = startObservationPoller({
      deps: { ...deps, driver: graph.driver },
      source: proxmoxSource(client, { tasks, inventory: sync }),
      intervalSeconds: pollSeconds,
      log: ctx.log,
      onObservation: (o) => printDetails(ctx, o.report, 5),
    });
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await poller.stop();
    return 0;
  } finally {
    client.close();
    await graph.close();
  }
}

async function vcenter(args: string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      file: { type: 'string' },
      server: { type: 'string' },
      complete: { type: 'boolean' },
      'batch-size': { type: 'string' },
    },
  });
  if (!values.file) {
    ctx.print(`usage: ${USAGE}`);
    return 2;
  }
  let document: unknown;
  try {
    document = JSON.parse(await readFile(values.file, 'utf8'));
  } catch (err) {
    ctx.print(`--file: cannot read ${values.file} as JSON: ${(err as Error).message}`);
    return 2;
  }
  const server = values.server ?? DEFAULT_SERVER;
  if (!values.server)
    ctx.print(`no --server: ids use vcenter:${DEFAULT_SERVER}/…; pass --server to keep several vCenters apart`);
  const deps = await pipelineDeps(ctx);
  const graph = await ctx.openGraph();
  try {
    const { report, correlation } = await observe(
      { ...deps, driver: graph.driver },
      vcenterDocumentSource(document, {
        server,
        complete: Boolean(values.complete),
        batchSize: positiveInt('batch-size', values['batch-size']),
        onProgress: (line) => ctx.print(line),
      }),
    );
    printDetails(ctx, report);
    for (const t of correlation.created) ctx.print(`  transition: ${t.narrative}`);
    return report.errors.length > 0 ? 1 : 0;
  } finally {
    await graph.close();
  }
}

async function manifestsAs(ctx: CliContext): Promise<number> {
  const graph = await ctx.openGraph();
  try {
    const r = await resolveManifestsAs(graph.driver);
    ctx.print(
      `manifests_as: matches=${r.matches.length} written=${r.written} new=${r.created} withdrawn=${r.withdrawn} ambiguous=${r.ambiguous.length}`,
    );
    for (const m of r.matches)
      ctx.print(`  ${m.fromId} MANIFESTS_AS ${m.toId} (${m.rule}, ${m.confidence}): ${m.evidence}`);
    for (const a of r.ambiguous) ctx.print(`  ambiguous ${a.rule}=${a.value}: ${a.ids.join(', ')}`);
    return 0;
  } finally {
    await graph.close();
  }
}

async function missing(args: string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({ args, options: { provider: { type: 'string' }, scope: { type: 'string' } } });
  const provider = values.provider === undefined ? null : ProviderSchema.safeParse(values.provider);
  if (provider && !provider.success)
    throw new AitiaError('BAD_USER_INPUT', `--provider: must be proxmox, vcenter or manual`);
  const graph = await ctx.openGraph();
  try {
    const found = await listMissingResources(graph.driver, {
      provider: provider?.data ?? null,
      scope: values.scope ?? null,
    });
    ctx.print(`${found.length} resource(s) not seen by the last complete sync of their scope`);
    for (const r of found) ctx.print(`  ${r.missingSince}  ${r.kind.padEnd(7)} ${r.id}  (${r.name}, last ${r.state})`);
    return 0;
  } finally {
    await graph.close();
  }
}

/**
 * `aitia ingest proxmox --once` (one pass; without --once it polls every AITIA_PROXMOX_POLL_SECONDS),
 * `aitia ingest vcenter --file <json>`, `aitia ingest manifests-as`, `aitia ingest missing`.
 * Progress is printed per stage. Exit 0 when the pass was complete, 1 when it was not (nothing was
 * then marked missing), 2 on bad arguments.
 */
export const ingestCommand: CliCommand = {
  name: 'ingest',
  summary: 'inventory ingest: poll Proxmox, import a vCenter inventory, link identities, list missing resources',
  usage: USAGE,
  async run(args, ctx) {
    const [what, ...rest] = args;
    try {
      if (what === 'proxmox') return await proxmox(rest, ctx);
      if (what === 'vcenter') return await vcenter(rest, ctx);
      if (what === 'manifests-as') return await manifestsAs(ctx);
      if (what === 'missing') return await missing(rest, ctx);
    } catch (err) {
      if (err instanceof AitiaError && err.code === 'BAD_USER_INPUT') {
        ctx.print(err.message);
        return 2;
      }
      if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
        ctx.print(`${(err as Error).message}\nusage: ${USAGE}`);
        return 2;
      }
      throw err;
    }
    ctx.print(`usage: ${USAGE}`);
    return 2;
  },
};
