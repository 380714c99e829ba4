import type { Driver } from 'neo4j-driver';
import { isoNow } from '../../graph/db/statements.js';
import { existingResourceIds, findResourceIdsByAttribute } from '../../graph/resources/queries.js';
import { markResourcesMissing } from '../../graph/resources/staleness.js';
import { upsertResources } from '../../graph/resources/upsert.js';
import { type ProxmoxClusterKey, resourceId } from '../../model/index.js';
import type { IngestReport } from '../report.js';
import { ProxmoxApiError } from './client-error.js';

/**
 * `adapter_unreachable` on the Proxmox cluster resource: opened when the API cannot be read (no
 * remediation is attached: it is about aitia's view, not the cluster), resolved by the next pass
 * that reads it.
 *
 * Also opened by a pass that read the cluster but not every online node's guests (`nodes` names
 * them, evidence kind `partial`).
 *
 * Where it hangs: the cluster whose `api_url` attribute is the configured URL (or the cluster named
 * by /cluster/status if that much answered). A cluster never seen gets a placeholder resource
 * `proxmox:<url host:port>/cluster` (state unreachable, lifecycle provisioning, attribute
 * `placeholder`), so operators see the problem from the first poll; once the real cluster is read,
 * the placeholder's condition is resolved and the placeholder is marked missing (never deleted).
 *
 * The adapter does not write the condition: it puts the open or resolve on the report
 * (`conditionOps`), and the observation writes it with the pass's transitions in one transaction.
 * The placeholder and its retirement are resource writes, done here.
 */

function placeholderId(apiUrl: string): string {
  return resourceId('proxmox', new URL(apiUrl).host, 'cluster');
}

/** Asks for the condition to open (or refresh); returns the resource it hangs on. */
export async function recordProxmoxUnreachable(
  driver: Driver,
  input: { apiUrl: string; clusterName: string | null; error: unknown; nodes?: readonly string[] },
  report: IngestReport,
): Promise<string> {
  const err = input.error;
  const byName = input.clusterName ? [resourceId('proxmox', input.clusterName, 'cluster')] : [];
  const byUrl = await findResourceIdsByAttribute(driver, {
    provider: 'proxmox',
    kind: 'cluster',
    key: 'api_url',
    value: input.apiUrl,
  });
  const known = await existingResourceIds(driver, [...byName, ...byUrl]);
  let target = [...byName, ...byUrl].find((id) => known.has(id));
  if (!target) {
    target = byName[0] ?? placeholderId(input.apiUrl);
    report.skipped.push({
      what: 'resource',
      id: target,
      reason: 'cluster never read: a placeholder cluster resource carries adapter_unreachable',
    });
    await upsertResources(driver, [
      {
        id: target,
        kind: 'cluster',
        provider: 'proxmox',
        name: input.clusterName ?? new URL(input.apiUrl).host,
        state: 'unreachable',
        rawState: 'never reached',
        // Only a URL-named placeholder is provisional; a cluster known by name is the real resource.
        ...(input.clusterName ? {} : { lifecycle: 'provisioning' as const }),
        attributes: { api_url: input.apiUrl, placeholder: true } satisfies Partial<Record<ProxmoxClusterKey, unknown>>,
      },
    ]);
  }
  const evidence = input.nodes
    ? {
        apiUrl: input.apiUrl,
        kind: 'partial',
        nodes: input.nodes,
        message: err instanceof Error ? err.message : String(err),
      }
    : err instanceof ProxmoxApiError
      ? {
          apiUrl: input.apiUrl,
          kind: err.kind,
          status: err.status,
          path: err.path,
          message: err.message,
          attempts: err.attempts,
        }
      : { apiUrl: input.apiUrl, kind: 'internal', message: err instanceof Error ? err.message : String(err) };
  report.conditionOps.push({ op: 'open', resourceId: target, type: 'adapter_unreachable', evidence, at: isoNow() });
  return target;
}

/** Asks for the condition to resolve on the cluster and on any placeholder for the same URL; retires placeholders. */
export async function recordProxmoxReachable(
  driver: Driver,
  input: { apiUrl: string; clusterName: string },
  report: IngestReport,
): Promise<void> {
  const real = resourceId('proxmox', input.clusterName, 'cluster');
  const byUrl = await findResourceIdsByAttribute(driver, {
    provider: 'proxmox',
    kind: 'cluster',
    key: 'api_url',
    value: input.apiUrl,
  });
  const others = byUrl.filter((id) => id !== real);
  const at = isoNow();
  for (const id of [real, ...others]) {
    const evidence = {
      apiUrl: input.apiUrl,
      message: id === real ? 'the API answered again' : `superseded by ${real}`,
    };
    report.conditionOps.push({ op: 'resolve', resourceId: id, type: 'adapter_unreachable', evidence, at });
  }
  const placeholders = await findResourceIdsByAttribute(driver, {
    provider: 'proxmox',
    kind: 'cluster',
    key: 'placeholder',
    value: true,
  });
  const retired = placeholders.filter((id) => others.includes(id));
  if (retired.length > 0) await markResourcesMissing(driver, retired);
}
