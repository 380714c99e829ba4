import { DateTime } from 'luxon';
import {
  type CheckDefinition,
  CheckDefinitionSchema,
  type CheckNetworkPolicy,
  type CheckResult,
  KindSchema,
} from '../model/index.js';
import type { DueCheck } from '../graph/checks.js';
import { probeHttp } from './probes/http-probe.js';
import type { ProbeOutcome } from './probes/outcome.js';
import { probeGuestAgent, probeProviderState, type ResourceFacts } from './probes/state-probes.js';
import { probeTcp } from './probes/tcp-probe.js';

/** Extra time a network probe gets past its own timeout before the runner gives up on it. */
const HARD_CAP_GRACE_MS = 1000;

function factsOf(resource: Record<string, unknown>): ResourceFacts | null {
  const kind = KindSchema.safeParse(resource.kind);
  if (!kind.success) return null;
  return {
    kind: kind.data,
    state: typeof resource.state === 'string' ? resource.state : null,
    rawState: typeof resource.rawState === 'string' ? resource.rawState : null,
    lifecycle: typeof resource.lifecycle === 'string' ? resource.lifecycle : null,
    properties: resource,
  };
}

function networkProbe(
  definition: CheckDefinition,
  signal: AbortSignal | undefined,
  network: CheckNetworkPolicy | undefined,
): Promise<ProbeOutcome> | null {
  if (definition.kind === 'http') return probeHttp(definition.spec, signal, network);
  if (definition.kind === 'tcp') return probeTcp(definition.spec, signal, network);
  return null;
}

/** A probe that ignores its own timeout must not stall the tick: the runner caps it. */
function capped(probe: Promise<ProbeOutcome>, timeoutMs: number): Promise<ProbeOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<ProbeOutcome>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          status: 'fail',
          reason: `probe did not finish within ${timeoutMs + HARD_CAP_GRACE_MS} ms`,
          unreachable: false,
        }),
      timeoutMs + HARD_CAP_GRACE_MS,
    );
  });
  return Promise.race([probe, cap]).finally(() => clearTimeout(timer));
}

/**
 * Runs one due check and returns its result; never throws. A stored spec that no longer parses
 * gives `unknown` with the reason (nothing can be concluded about the resource from it).
 */
export async function runCheck(
  due: DueCheck,
  // network: where http/tcp checks may connect (AITIA_CHECK_ALLOW); default refuses loopback & co.
  options: { signal?: AbortSignal; network?: CheckNetworkPolicy } = {},
): Promise<CheckResult> {
  const started = DateTime.utc();
  const t0 = performance.now();
  const finish = (o: ProbeOutcome): CheckResult => ({
    status: o.status,
    reason: o.reason,
    unreachable: o.unreachable,
    at: started.toISO(),
    durationMs: Math.max(0, Math.round(performance.now() - t0)),
  });
  const parsed = CheckDefinitionSchema.safeParse({ kind: due.check.kind, spec: due.check.spec });
  if (!parsed.success)
    return finish({
      status: 'unknown',
      reason: `stored check spec is invalid: ${parsed.error.issues[0]?.message ?? 'unparseable'}`,
      unreachable: false,
    });
  const definition = parsed.data;
  try {
    const probe = networkProbe(definition, options.signal, options.network);
    if (probe) return finish(await capped(probe, (definition.spec as { timeoutMs: number }).timeoutMs));
    const facts = factsOf(due.resource);
    if (!facts) return finish({ status: 'unknown', reason: 'resource has no recognised kind', unreachable: false });
    return finish(definition.kind === 'proxmox_agent' ? probeGuestAgent(facts) : probeProviderState(facts));
  } catch (err) {
    // Probes do not throw; should one, its check fails with the reason rather than the tick.
    return finish({
      status: 'fail',
      reason: `probe error: ${err instanceof Error ? err.message : String(err)}`,
      unreachable: false,
    });
  }
}
