import { DateTime } from 'luxon';
import * as repo from '../graph/checks.js';
import {
  badInput,
  type CheckDefinition,
  type CheckRecord,
  type CheckResult,
  type CreateCheckFields,
  type HttpCheckSpec,
  notFound,
  literalTargetRefusal,
  parseCreateCheckInput,
  STRICT_CHECK_POLICY,
  type TcpCheckSpec,
} from '../model/index.js';
import { audited } from './audit.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';
import { resolveInputRef, resolveRef } from './resources.js';

/** A resource's checks (id or slug), each with its spec and recent results. */
export async function checks(
  deps: ServiceDeps,
  principal: Principal,
  input: { resourceId: string },
): Promise<CheckRecord[]> {
  assertCan(principal, 'check:read');
  const resource = await resolveRef(deps, input.resourceId, 'resourceId');
  return (await repo.checksOfResources(deps.driver, [resource.id])).get(resource.id) ?? [];
}

/**
 * Adds a check to a resource (operators; audited), due at once; idempotent on (resource, kind,
 * spec). A `proxmox_agent` check reads the QEMU guest agent the Proxmox ingest records, so only a
 * Proxmox VM can have one.
 */
export function createCheck(
  deps: ServiceDeps,
  principal: Principal,
  input: CreateCheckFields & { resourceId: string },
): Promise<{ check: CheckRecord; created: boolean }> {
  return audited(
    deps,
    principal,
    'createCheck',
    [input.resourceId],
    async (ok) => {
      assertCan(principal, 'check:manage');
      const parsed = parseCreateCheckInput(input);
      if (!parsed.ok) throw badInput(parsed.field, parsed.reason);
      const refused = targetRefusal(deps, parsed.definition);
      if (refused) throw badInput(refused.field, refused.reason);
      const resource = await resolveInputRef(deps, input.resourceId, 'input.resourceId');
      if (parsed.definition.kind === 'proxmox_agent' && (resource.provider !== 'proxmox' || resource.kind !== 'vm')) {
        throw badInput(
          'input.kind',
          `proxmox_agent checks the QEMU guest agent of a Proxmox VM; ${resource.id} is a ${resource.provider} ${resource.kind}`,
        );
      }
      return repo.createCheck(
        deps.driver,
        {
          resourceId: resource.id,
          definition: parsed.definition,
          intervalSeconds: parsed.intervalSeconds,
          critical: parsed.critical,
          createdBy: principal.name,
          at: DateTime.utc().toISO(),
        },
        // The check and its audit line commit together.
        () => ok.entry(),
      );
    },
    undefined,
    { args: input },
  );
}

/** A literal loopback, link-local, metadata or Neo4j target the allow-list does not name (no DNS here). */
function targetRefusal(deps: ServiceDeps, d: CheckDefinition): { field: string; reason: string } | null {
  const policy = deps.checkNetwork ?? STRICT_CHECK_POLICY;
  if (d.kind === 'http') {
    const url = new URL(d.spec.url);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const reason = literalTargetRefusal(policy, url.hostname, port);
    return reason ? { field: 'input.http.url', reason } : null;
  }
  if (d.kind === 'tcp') {
    const reason = literalTargetRefusal(policy, d.spec.host, d.spec.port);
    return reason ? { field: 'input.tcp.host', reason } : null;
  }
  return null;
}

/** Removes a check (operators; audited); health and conditions follow at the scheduler's next tick. */
export function removeCheck(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string },
): Promise<{ id: string; resourceId: string; message: string }> {
  const { id } = input;
  return audited(
    deps,
    principal,
    'removeCheck',
    [id],
    async (ok) => {
      assertCan(principal, 'check:manage');
      if (!(await repo.getCheck(deps.driver, id))) throw notFound('id', `check ${id}`);
      // The removal and its audit line commit together.
      const removed = await repo.removeCheck(deps.driver, id, () => ok.entry());
      if (!removed) throw notFound('id', `check ${id}`);
      return {
        id,
        resourceId: removed.resourceId,
        message:
          'Check removed. The resource’s health and its check conditions follow at the scheduler’s next tick (health returns to unknown when no check remains).',
      };
    },
    undefined,
    { args: input },
  );
}

/** An http check's spec, typed: stored specs were validated (defaults filled in) when the check was created. */
export function httpSpecOf(check: CheckRecord): HttpCheckSpec | null {
  if (check.kind !== 'http') return null;
  const { url, expectedStatus, timeoutMs } = check.spec;
  return { url: String(url), expectedStatus: Number(expectedStatus), timeoutMs: Number(timeoutMs) };
}

/** A tcp check's spec, typed. */
export function tcpSpecOf(check: CheckRecord): TcpCheckSpec | null {
  if (check.kind !== 'tcp') return null;
  const { host, port, timeoutMs } = check.spec;
  return { host: String(host), port: Number(port), timeoutMs: Number(timeoutMs) };
}

/** The newest `last` results (all kept ones without `last`); `last` must be a positive integer. */
export function recentResults(check: CheckRecord, last: number | null | undefined): CheckResult[] {
  if (last != null && (!Number.isInteger(last) || last < 1)) throw badInput('last', 'must be a positive integer');
  return last != null ? check.results.slice(0, last) : check.results;
}
