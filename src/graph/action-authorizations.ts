import type { Driver, ManagedTransaction, Record as Neo4jRecord } from 'neo4j-driver';
import type { UsedEvent } from '../model/authorizations.js';
import type { ActionAuthorization } from '../model/authorizations.js';
import { readQuery, toPlain } from './db/statements.js';

/*
 * The authorizations the correlator credits changes to: every `(:ActionAuthorized)` entry (a
 * redeemed grant, src/graph/approvals.ts redeemGrantTx; a reported auto action, src/graph/autonomy.ts)
 * of some targets in a time range, with the approval behind a grant (who asked, who approved).
 * Read by target and time through the `action_authorized_target` index (targetId, action, at).
 */

const READ = `UNWIND $targetIds AS targetId
  MATCH (x:ActionAuthorized {targetId: targetId})
  WHERE x.at >= datetime($since) AND x.at <= datetime($until)
  OPTIONAL MATCH (a:Approval {id: x.approvalId})
  RETURN x.id AS id, x.source AS source, x.action AS action, x.targetId AS targetId, x.principal AS principal,
         x.at AS at, x.approvalId AS approvalId, x.providerTaskId AS providerTaskId,
         a.requester AS requester, a.decidedBy AS decidedBy, a.decidedAt AS decidedAt
  ORDER BY x.at, x.id`;

/**
 * The entries of `targetIds` redeemed or reported in [since, until] (ISO-8601), oldest first, inside
 * a transaction (the pipeline's correlation read). The caller widens its window by the use window:
 * a task started at T can be explained by an entry from T − useWindow up to T + useWindow (an auto
 * report after the act).
 */
export async function readActionAuthorizationsTx(
  tx: Pick<ManagedTransaction, 'run'>,
  targetIds: readonly string[],
  since: string,
  until: string,
): Promise<ActionAuthorization[]> {
  const ids = [...new Set(targetIds)];
  if (ids.length === 0) return [];
  const { records } = await tx.run(READ, { targetIds: ids, since, until });
  return records.map(authorizationOf);
}

/** {@link readActionAuthorizationsTx} as one read of its own (readQuery: one round trip). */
export async function readActionAuthorizations(
  driver: Driver,
  targetIds: readonly string[],
  since: string,
  until: string,
): Promise<ActionAuthorization[]> {
  const ids = [...new Set(targetIds)];
  if (ids.length === 0) return [];
  const { records } = await readQuery(driver, READ, { targetIds: ids, since, until });
  return records.map(authorizationOf);
}

function authorizationOf(r: Neo4jRecord): ActionAuthorization {
  const source = r.get('source') === 'auto' ? 'auto' : 'grant';
  const principal = r.get('principal') as string;
  const grant = source === 'grant';
  return {
    id: r.get('id') as string,
    source,
    action: r.get('action') as string,
    targetId: r.get('targetId') as string,
    principal,
    at: toPlain(r.get('at')) as string,
    approvalId: (r.get('approvalId') as string | null) ?? null,
    // An auto action has no approval: the executor that reported it asked for it.
    requestedBy: grant ? ((r.get('requester') as string | null) ?? principal) : principal,
    approvedBy: grant ? ((r.get('decidedBy') as string | null) ?? null) : null,
    approvedAt: grant ? ((toPlain(r.get('decidedAt')) as string | null) ?? null) : null,
    providerTaskId: (r.get('providerTaskId') as string | null) ?? null,
  };
}

/** The entries around a pass's agent-credited changes, and which event each already explains. */
export interface AuthorizationsInUse {
  authorizations: ActionAuthorization[];
  /** Entry id → the events stored transitions credited to it (Transition.authorizationEventId), with their types. */
  used: Map<string, UsedEvent[]>;
}

// The same entries, with the stored transition (if any) credited to each: through transition_authorization.
const READ_WITH_USE = `UNWIND $targetIds AS targetId
  MATCH (x:ActionAuthorized {targetId: targetId})
  WHERE x.at >= datetime($since) AND x.at <= datetime($until)
  OPTIONAL MATCH (a:Approval {id: x.approvalId})
  CALL (x) {
    OPTIONAL MATCH (t:Transition {authorizationId: x.id})
    OPTIONAL MATCH (e:Event {id: t.authorizationEventId})
    RETURN collect(DISTINCT CASE WHEN t IS NULL THEN null ELSE {id: t.authorizationEventId, type: e.type} END) AS usedBy
  }
  RETURN x.id AS id, x.source AS source, x.action AS action, x.targetId AS targetId, x.principal AS principal,
         x.at AS at, x.approvalId AS approvalId, x.providerTaskId AS providerTaskId,
         a.requester AS requester, a.decidedBy AS decidedBy, a.decidedAt AS decidedAt, usedBy
  ORDER BY x.at, x.id`;

/**
 * {@link readActionAuthorizations} with the `used` map the matcher needs, in ONE read: an entry
 * credited already (an earlier pass, a retried one) explains only the event it was credited with.
 */
export async function readAuthorizationsInUse(
  driver: Driver,
  targetIds: readonly string[],
  since: string,
  until: string,
): Promise<AuthorizationsInUse> {
  const ids = [...new Set(targetIds)];
  if (ids.length === 0) return { authorizations: [], used: new Map() };
  const { records } = await readQuery(driver, READ_WITH_USE, { targetIds: ids, since, until });
  const used = new Map<string, UsedEvent[]>();
  for (const r of records) {
    const by = (r.get('usedBy') as Array<{ id: string; type: string | null }> | null) ?? [];
    if (by.length > 0)
      used.set(
        r.get('id') as string,
        by.map((u) => ({ id: u.id, type: u.type ?? null })),
      );
  }
  return { authorizations: records.map(authorizationOf), used };
}
