import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamCoverages } from '../../../../src/graph/coverage.js';
import { observe } from '../../../../src/pipeline/observe.js';
import { vcenterSource } from '../../../../src/ingest/vcenter/source.js';
import { useGraph } from '../../../support/graph.js';
import { runTask, startVcsim, type Vcsim, vcsimOrSkip, vmRefs } from '../../../support/vcsim.js';

/**
 * The vCenter event log's coverage through the real pass against vcsim: a drained collector covers
 * [since, read] of `vcenter:<server>#events`; a pass that dies reading records a gap instead.
 */
const bin = vcsimOrSkip();
const { driver, scope } = useGraph();
const server = `vc-${scope}`;
const deps = () => ({ driver, suppression: 'shadow' as const });
const coverage = async () =>
  streamCoverages(driver, {
    source: `vcenter:${server}`,
    since: DateTime.utc().minus({ days: 2 }).toISO()!,
    until: DateTime.utc().plus({ hours: 1 }).toISO()!,
  });

describe.skipIf(!bin)('vCenter event log coverage (vcsim)', () => {
  let sim: Vcsim;
  beforeAll(async () => {
    sim = await startVcsim(bin!);
  });
  afterAll(() => sim?.kill());

  it('a complete pass covers its window; a power-off in it is high, carrying no unknownBecause', async () => {
    const first = await observe(deps(), vcenterSource(sim.client(), { server }));
    expect(first.report.complete).toBe(true);
    const [stream] = await coverage();
    expect(stream).toMatchObject({ streamId: `vcenter:${server}#events`, node: null, gaps: [] });
    expect(stream!.intervals).toHaveLength(1);
    // CurrentTime against aitia's clock: vcsim runs on this machine's clock.
    expect(stream!.clockOffsetSeconds).not.toBeNull();
    expect(Math.abs(stream!.clockOffsetSeconds!)).toBeLessThanOrEqual(1);
    const alice = sim.client('alice');
    await runTask(alice, 'PowerOffVM_Task', (await vmRefs(alice)).get('DC0_H0_VM1')!);
    const o = await observe(deps(), vcenterSource(sim.client(), { server }));
    expect(o.correlation.created[0]?.attribution).toMatchObject({ confidence: 'high', actor: 'alice' });
    expect(o.correlation.created[0]?.attribution.unknownBecause).toBeNull();
    // The second read overlaps the first: still one interval, now longer.
    const intervals = (await coverage())[0]!.intervals;
    expect(intervals).toHaveLength(1);
    // The events are read after the inventory: the log is read past the pass's observation (no sliver).
    expect(Date.parse(intervals[0]!.to)).toBeGreaterThanOrEqual(Date.parse(o.report.startedAt) - 999);
  });

  it('a pass that cannot read records a gap with the reason', async () => {
    const killer = sim.client('aitia-reader', {
      onAnswer: (method) => {
        if (method === 'RetrievePropertiesEx') sim.kill();
      },
    });
    const o = await observe(deps(), vcenterSource(killer, { server, pageSize: 2 }));
    expect(o.report.complete).toBe(false);
    const [stream] = await coverage();
    expect(stream!.gaps).toEqual([expect.objectContaining({ reason: 'source_unreachable' })]);
  });
});
