import type { Driver } from 'neo4j-driver';
import { isoNow } from '../graph/db/statements.js';
import { recordSourcePass, registerSources } from '../graph/sources.js';
import { createIdentityTracker, type IdentityTracker } from '../ingest/identity/incremental.js';
import { createProxmoxClient } from '../ingest/proxmox/client.js';
import { createVsphereClient } from '../ingest/vcenter/client.js';
import type { Logger } from '../log.js';
import type { CorrelationDeps } from '../pipeline/correlate.js';
import { proxmoxSource } from '../ingest/proxmox/source.js';
import type { ObservationSource } from '../ingest/source.js';
import { vcenterSource } from '../ingest/vcenter/source.js';
import type { Observation } from '../pipeline/observe.js';
import type { SourceSpec } from '../sources-file.js';
import { pollLeaseName } from '../model/lease.js';
import { type LeaseSettings, runUnderLease } from './lease-keeper.js';
import { type Poller, startObservationPoller } from './poller.js';

/** Proxmox tunables shared by every Proxmox source (AITIA_PROXMOX_*). */
export interface ProxmoxTuning {
  configRefreshSeconds: number;
  agentSeconds: number;
  maxConcurrentRequests: number;
  /** Largest Proxmox answer read (AITIA_PROXMOX_MAX_ANSWER_BYTES); a larger one fails the call. */
  maxAnswerBytes?: number;
}

/** The running pollers of every configured source. */
export interface SourcePollers {
  /** Polling sources by name. */
  pollers: ReadonlyMap<string, Poller>;
  stop(): Promise<void>;
}

/** A source's client and observation source, built from its spec (credentials present). */
interface BuiltSource {
  source: ObservationSource<unknown>;
  close(): unknown;
}

/** How each kind of source is built: its client, and the provider pass it is polled with. */
const SOURCE_KINDS: {
  [K in SourceSpec['kind']]: (spec: Extract<SourceSpec, { kind: K }>, tuning: ProxmoxTuning) => BuiltSource;
} = {
  proxmox: (spec, tuning) => {
    const client = createProxmoxClient({
      baseUrl: spec.url,
      token: spec.token!,
      caFile: spec.caFile,
      insecure: spec.insecure,
      maxConcurrent: tuning.maxConcurrentRequests,
      ...(tuning.maxAnswerBytes ? { maxBodyBytes: tuning.maxAnswerBytes } : {}),
    });
    const source = proxmoxSource(client, {
      tasks: { initialLookbackSeconds: spec.backfillHours * 3600 },
      inventory: { configRefreshSeconds: tuning.configRefreshSeconds, agentSeconds: tuning.agentSeconds },
    }) as ObservationSource<unknown>;
    return { source: { ...source, name: `proxmox ${spec.name}` }, close: () => client.close() };
  },
  vcenter: (spec) => {
    const client = createVsphereClient({
      url: spec.url,
      username: spec.username!,
      password: spec.password!,
      caFile: spec.caFile,
      insecure: spec.insecure,
    });
    const source = vcenterSource(client, { server: spec.server, backfillHours: spec.backfillHours });
    return {
      source: { ...source, name: `vcenter ${spec.name}` } as ObservationSource<unknown>,
      close: () => client.close(),
    };
  },
};

function build(spec: SourceSpec, tuning: ProxmoxTuning): BuiltSource {
  const make = SOURCE_KINDS[spec.kind] as (spec: SourceSpec, tuning: ProxmoxTuning) => BuiltSource;
  return make(spec, tuning);
}

/**
 * Starts one poller per source with credentials, each on its own timer (a slow or dead source
 * never delays another), logs one line per source at start ("proxmox lab: polling every 30 s",
 * "vcenter vc01: no credentials — not polled"), records each pass in the graph, and after every
 * complete pass of any source runs the identity resolver incrementally.
 */
export async function startSourcePollers(options: {
  deps: CorrelationDeps;
  specs: readonly SourceSpec[];
  log: Logger;
  tuning: ProxmoxTuning;
  identity?: IdentityTracker;
  onObservation?: (name: string, o: Observation<unknown>) => void;
  /** With replicas: each source is polled only while this replica holds its lease (`poll:<name>`). */
  lease?: LeaseSettings;
}): Promise<SourcePollers> {
  const { deps, log } = options;
  const identity = options.identity ?? createIdentityTracker();
  const removed = await registerSources(
    deps.driver,
    options.specs.map((s) => ({
      name: s.name,
      kind: s.kind,
      url: s.url,
      status: s.missing ? ('disabled' as const) : ('polling' as const),
      lastError: s.missing,
      pollSeconds: s.pollSeconds,
    })),
    isoNow(),
  );
  for (const name of removed)
    log.warn({ source: name }, `source ${name}: no longer configured — its resources stay in the graph, not polled`);
  const pollers = new Map<string, Poller>();
  const closers: Array<() => unknown> = [];
  for (const spec of options.specs) {
    if (spec.missing) {
      log.warn(
        { source: spec.name, kind: spec.kind, origin: spec.origin },
        `${spec.kind} ${spec.name}: ${spec.missing} — not polled`,
      );
      continue;
    }
    const { source, close } = build(spec, options.tuning);
    closers.push(close);
    log.info(
      { source: spec.name, kind: spec.kind, url: spec.url, origin: spec.origin },
      `${spec.kind} ${spec.name}: polling every ${spec.pollSeconds} s` +
        (options.lease ? ` while this replica holds the lease ${pollLeaseName(spec.name)}` : ''),
    );
    const poll = (driver: Driver) =>
      startObservationPoller({
        deps: { ...deps, driver },
        source,
        intervalSeconds: spec.pollSeconds,
        log,
        onObservation: async (o) => {
          const error = o.report.errors[0]?.message ?? null;
          await recordSourcePass(driver, {
            name: spec.name,
            at: o.report.startedAt,
            complete: o.report.complete,
            error,
          });
          if (o.report.complete) {
            const run = await identity.run(driver);
            if (run.mode !== 'unchanged')
              log.info({ source: spec.name, ...run }, `${spec.kind} ${spec.name}: identity links ${run.mode}`);
          }
          options.onObservation?.(spec.name, o);
        },
      });
    pollers.set(
      spec.name,
      options.lease ? leasedPoller(spec.name, poll, options.lease, deps.driver, log) : poll(deps.driver),
    );
  }
  return {
    pollers,
    async stop() {
      await Promise.all([...pollers.values()].map((p) => p.stop()));
      for (const close of closers) await close();
    },
  };
}

/**
 * A source's poller under its lease: started (first pass at once) each time this replica acquires
 * `poll:<name>`, stopped when it loses it; every write of a pass carries the term's fence.
 */
function leasedPoller(
  name: string,
  poll: (driver: Driver) => Poller,
  lease: LeaseSettings,
  driver: Driver,
  log: Logger,
): Poller {
  let earlier = 0;
  let current: Poller | null = null;
  const leased = runUnderLease({
    driver,
    name: pollLeaseName(name),
    lease,
    log,
    start: (fenced) => {
      const poller = poll(fenced);
      current = poller;
      return {
        async stop() {
          await poller.stop();
          earlier += poller.passes;
          if (current === poller) current = null;
        },
      };
    },
  });
  return {
    get passes() {
      return earlier + (current?.passes ?? 0);
    },
    stop: () => leased.stop(),
  };
}
