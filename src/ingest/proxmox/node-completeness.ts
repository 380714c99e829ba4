import type { ScopeError } from '../report.js';
import { guestKey, type ParsedClusterResources, type ParsedClusterStatus } from './inventory-parse.js';

/**
 * Complete means complete: an inventory pass may mark what it did not see missing only when every
 * node `/cluster/status` reports online answered with its guests. `/cluster/resources` is assembled
 * by pmxcfs from what each node last broadcast, so a node that stopped broadcasting (or a listing
 * cut short) silently drops its guests there; each such node is checked against its own answer.
 *
 * A node is incomplete when `/cluster/status` says it is online and
 * - `/cluster/resources` does not list it online (absent or another status),
 * - one of its guest lists (`/nodes/{node}/qemu`, `/nodes/{node}/lxc`) did not answer a list, or
 * - its lists name a guest `/cluster/resources` does not list at all.
 */

/**
 * Nodes found incomplete, and the cross-check errors (a list that did not answer is already an
 * error of the fetch stage; it is not reported twice).
 */
export interface NodeCompleteness {
  incomplete: string[];
  errors: ScopeError[];
}

/** Names of the nodes `/cluster/status` reports online: each must answer with its guests. */
export function statusOnlineNodes(status: ParsedClusterStatus): string[] {
  return status.nodes.filter((n) => n.online === true).map((n) => n.name);
}

/** Checks each online node (see the module doc); `nodeLists` holds what the lists answered, by `node|type`. */
export function checkNodeCompleteness(
  cluster: string,
  status: ParsedClusterStatus,
  resources: ParsedClusterResources,
  nodeLists: ReadonlyMap<string, ReadonlySet<string>>,
): NodeCompleteness {
  const out: NodeCompleteness = { incomplete: [], errors: [] };
  const listedGuests = new Set(resources.guests.map(guestKey));
  for (const node of statusOnlineNodes(status).sort()) {
    const scope = `proxmox:${cluster}/node/${node}`;
    const reasons: ScopeError[] = [];
    let silent = false;
    const entry = resources.nodes.find((n) => n.node === node);
    if (entry?.status !== 'online')
      reasons.push({
        scope,
        path: '/cluster/resources',
        status: null,
        message: `node ${node} is online in /cluster/status but /cluster/resources lists it ${entry ? `as ${entry.status ?? 'without a status'}` : 'not at all'}`,
      });
    for (const type of ['qemu', 'lxc'] as const) {
      const list = nodeLists.get(`${node}|${type}`);
      if (!list) {
        silent = true;
        continue;
      }
      const unlisted = [...list].filter((k) => !listedGuests.has(k)).sort();
      if (unlisted.length > 0)
        reasons.push({
          scope,
          path: `/nodes/${node}/${type}`,
          status: null,
          message: `node ${node} has ${unlisted.join(', ')} which /cluster/resources does not list`,
        });
    }
    if (silent || reasons.length > 0) {
      out.incomplete.push(node);
      out.errors.push(...reasons);
    }
  }
  return out;
}
