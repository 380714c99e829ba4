import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { streamCoverages } from '../../../../src/graph/coverage.js';
import { proxmoxSource } from '../../../../src/ingest/proxmox/source.js';
import { observe } from '../../../../src/pipeline/observe.js';
import { useGraph } from '../../../support/graph.js';
import { labRoutes, patchData, standinClient, withLabTasks } from '../../../support/proxmox-lab.js';
import {
  type ProxmoxStandin,
  type RecordedResponse,
  type RouteTable,
  startProxmoxStandin,
} from '../../../support/proxmox-standin.js';
import { taskEntry, useEventCleanup } from '../../../support/proxmox-tasks.js';

/**
 * The sliver before the inventory: a Proxmox pass reads the task lists, then the inventory. A stop
 * whose task starts between the two reads is in no read when the inventory reports it — before the
 * top-up, the stop was `no_record` (a few uncovered seconds ignored), though its task was there. Now
 * the pass reads the changed guest's node again before correlating: alice's stop is high, and the
 * node's log is covered past the observation. A pass with no change reads nothing more.
 */
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const deps = { driver, suppression: 'shadow' as const };

let standin: ProxmoxStandin;
let entries: Array<Record<string, unknown>> = [];
let cluster = '';
let n = 0;
const iso = (t: DateTime) => t.toISO({ suppressMilliseconds: true })!;

beforeAll(async () => {
  standin = await startProxmoxStandin();
});
afterAll(async () => {
  await standin?.close();
});
beforeEach(async () => {
  cluster = `lab-${scope}-${++n}`;
  entries = [];
  standin.clearFaults();
  standin.routes(withLabTasks(labRoutes(cluster), () => entries));
  const first = await observe(deps, proxmoxSource(standinClient(standin)));
  expect(first.correlation.created).toEqual([]);
});

/** The next poll's answers: web01 (qemu/101 on pve1) stopped; `onInventory` runs as the inventory is read. */
function stoppedRoutes(onInventory: () => void): RouteTable {
  const table = withLabTasks(
    labRoutes(cluster, { patchListing: { 'qemu/101': { status: 'stopped' } } }),
    () => entries,
  );
  patchData(table, 'GET /nodes/pve1/qemu/101/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  const listing = table.get('GET /cluster/resources') as RecordedResponse;
  table.set('GET /cluster/resources', () => {
    onInventory();
    return listing;
  });
  return table;
}

describe('the task lists are topped up after the inventory reports changes', () => {
  it('a stop whose task started between the task read and the inventory: read by the top-up, high, alice', async () => {
    standin.routes(
      stoppedRoutes(() => {
        if (entries.length === 0)
          entries.push(
            taskEntry({ node: 'pve1', type: 'qmstop', id: '101', user: 'alice@pve', start: iso(DateTime.utc()) }),
          );
      }),
    );
    const o = await observe(deps, proxmoxSource(standinClient(standin)));
    expect(o.extra.tasks.nodes.every((x) => x.listed === 0)).toBe(true);
    expect(o.extra.topUp?.nodes.map((x) => [x.node, x.listed])).toEqual([['pve1', 1]]);
    const [t] = o.correlation.created;
    expect(o.correlation.created).toHaveLength(1);
    expect(t!.attribution).toMatchObject({ confidence: 'high', actor: 'alice@pve', unknownBecause: null });
    const [pve1] = await streamCoverages(driver, {
      source: `proxmox:${cluster}`,
      since: iso(DateTime.utc().minus({ hours: 1 })),
      until: iso(DateTime.utc()),
    });
    expect(pve1!.node).toBe('pve1');
    expect(Date.parse(pve1!.intervals.at(-1)!.to)).toBeGreaterThanOrEqual(Date.parse(o.report.startedAt) - 999);
  });

  it('a stop with no task at all: the top-up reads past the observation, and nothing there is no_record', async () => {
    standin.routes(stoppedRoutes(() => undefined));
    const o = await observe(deps, proxmoxSource(standinClient(standin)));
    const [t] = o.correlation.created;
    expect(t!.attribution.confidence).toBe('none');
    expect(t!.attribution.unknownBecause).toMatchObject({ reason: 'no_record', node: 'pve1' });
  });

  it('the top-up of the node cannot be read: the stop is log_not_read, never no_record', async () => {
    let inventoryRead = false;
    // pve1's list answers the task stage, then fails once the inventory has been read.
    const table = stoppedRoutes(() => (inventoryRead = true));
    const ok = table.get('GET /nodes/pve1/tasks')!;
    table.set('GET /nodes/pve1/tasks', (req) =>
      inventoryRead ? { status: 595, statusMessage: 'no route to host' } : typeof ok === 'function' ? ok(req) : ok,
    );
    standin.routes(table);
    const o = await observe(deps, proxmoxSource(standinClient(standin)));
    expect(o.extra.topUp?.nodes[0]).toMatchObject({
      node: 'pve1',
      complete: false,
      gap: { reason: 'source_unreachable' },
    });
    const [t] = o.correlation.created;
    expect(t!.attribution.confidence).toBe('none');
    expect(t!.attribution.unknownBecause).toMatchObject({ reason: 'log_not_read', node: 'pve1' });
  });

  it('a pass with no change reads no task list again', async () => {
    const o = await observe(deps, proxmoxSource(standinClient(standin)));
    expect(o.report.stateChanges).toEqual([]);
    expect(o.extra.topUp).toBeNull();
  });
});
