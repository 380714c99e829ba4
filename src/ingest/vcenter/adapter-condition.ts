import type { Driver } from 'neo4j-driver';
import { isoNow } from '../../graph/db/statements.js';
import { existingResourceIds } from '../../graph/resources/queries.js';
import { upsertResources } from '../../graph/resources/upsert.js';
import { resourceId, type ResourceInput, type VcenterServiceKey } from '../../model/index.js';
import type { IngestReport } from '../report.js';
import { VsphereApiError } from './client-error.js';

/**
 * The vCenter server itself is a resource, `vcenter:<server>/service/vcenter` (kind service): a
 * polled pass writes it `up` with its product and API version like any other row, and
 * `adapter_unreachable` hangs on it when the API cannot be read — opened by a failed or partial
 * pass, resolved by the next complete one. A server never read gets it as a placeholder
 * (state unknown, lifecycle provisioning) so the problem shows from the first poll. The condition
 * is not written here: its open or resolve goes on the report (`conditionOps`) for the
 * observation's one write.
 */

export function vcenterServiceId(server: string): string {
  return resourceId('vcenter', server, 'service', 'vcenter');
}

/** The row a pass that read the API writes for the server. */
export function vcenterServiceRow(
  server: string,
  input: { url: string; fullName: string; version: string; apiVersion: string },
): ResourceInput {
  return {
    id: vcenterServiceId(server),
    kind: 'service',
    provider: 'vcenter',
    name: server,
    state: 'up',
    rawState: 'answering',
    lifecycle: 'active',
    attributes: {
      api_url: input.url,
      product: input.fullName,
      version: input.version,
      api_version: input.apiVersion,
      placeholder: false,
    } satisfies Partial<Record<VcenterServiceKey, unknown>>,
  };
}

/** Asks for the condition to open (or refresh) on the server's resource. */
export async function recordVcenterUnreachable(
  driver: Driver,
  input: { server: string; url: string; error: unknown },
  report: IngestReport,
): Promise<string> {
  const id = vcenterServiceId(input.server);
  if (!(await existingResourceIds(driver, [id])).has(id)) {
    report.skipped.push({
      what: 'resource',
      id,
      reason: 'vCenter never read: a placeholder carries adapter_unreachable',
    });
    await upsertResources(driver, [
      {
        id,
        kind: 'service',
        provider: 'vcenter',
        name: input.server,
        state: 'unknown',
        rawState: 'never reached',
        lifecycle: 'provisioning',
        attributes: { api_url: input.url, placeholder: true } satisfies Partial<Record<VcenterServiceKey, unknown>>,
      },
    ]);
  }
  const err = input.error;
  const evidence =
    err instanceof VsphereApiError
      ? {
          apiUrl: input.url,
          kind: err.kind,
          method: err.method,
          status: err.status,
          faultType: err.faultType,
          message: err.message,
        }
      : { apiUrl: input.url, kind: 'internal', message: err instanceof Error ? err.message : String(err) };
  report.conditionOps.push({ op: 'open', resourceId: id, type: 'adapter_unreachable', evidence, at: isoNow() });
  return id;
}

/** Asks for the condition to resolve after a pass that read everything. */
export function recordVcenterReachable(input: { server: string; url: string }, report: IngestReport): void {
  report.conditionOps.push({
    op: 'resolve',
    resourceId: vcenterServiceId(input.server),
    type: 'adapter_unreachable',
    evidence: { apiUrl: input.url, message: 'the API answered again' },
    at: isoNow(),
  });
}
