import { describe, expect, it } from 'vitest';
import { recordApiGap, recordLogReads, streamCoverages } from '../../../src/graph/coverage.js';
import { useGraph } from '../../support/graph.js';

const { driver, scope } = useGraph();
const source = `proxmox:${scope}`;
const stream = (node: string) => `${source}/node/${node}#tasks`;
const t = (hms: string) => `2026-05-14T${hms}Z`;
const read = (node: string, extra: object) => ({
  streamId: stream(node),
  source,
  node,
  provider: 'proxmox' as const,
  apiUrl: `http://${scope}.invalid:8006`,
  ...extra,
});
const coverage = async () =>
  Object.fromEntries(
    (await streamCoverages(driver, { source, since: t('00:00:00'), until: t('23:59:59') })).map((s) => [s.node, s]),
  );

describe('log coverage in the graph', () => {
  it('merges overlapping complete reads, keeps apart what a gap separates; recording twice changes nothing', async () => {
    await recordLogReads(driver, [read('pve1', { complete: { from: t('02:00:00'), to: t('02:10:00') } })]);
    await recordLogReads(driver, [read('pve1', { complete: { from: t('02:05:00'), to: t('02:20:00') } })]);
    await recordLogReads(driver, [read('pve1', { complete: { from: t('02:05:00'), to: t('02:20:00') } })]);
    await recordLogReads(driver, [read('pve1', { complete: { from: t('03:00:00'), to: t('03:10:00') } })]);
    const c = await coverage();
    expect(c.pve1!.intervals).toEqual([
      { from: t('02:00:00'), to: t('02:20:00') },
      { from: t('03:00:00'), to: t('03:10:00') },
    ]);
    expect(c.pve1!.horizon).toBe(t('02:00:00'));
    // The later read that covers the gap joins them.
    await recordLogReads(driver, [read('pve1', { complete: { from: t('02:15:00'), to: t('03:05:00') } })]);
    expect((await coverage()).pve1!.intervals).toEqual([{ from: t('02:00:00'), to: t('03:10:00') }]);
  });

  it('a failed read covers nothing and keeps its reason; a source-wide failure lands on every stream of the API', async () => {
    await recordLogReads(driver, [
      read('pve2', { complete: { from: t('01:00:00'), to: t('02:10:00') } }),
      read('pve3', { complete: { from: t('01:00:00'), to: t('02:10:00') }, clockOffsetSeconds: 42 }),
    ]);
    await recordLogReads(driver, [
      read('pve2', {
        gap: {
          from: t('02:05:00'),
          to: t('02:25:00'),
          reason: 'source_unreachable',
          detail: 'ECONNREFUSED',
          at: t('02:25:00'),
        },
      }),
    ]);
    let c = await coverage();
    expect(c.pve2!.intervals).toEqual([{ from: t('01:00:00'), to: t('02:10:00') }]);
    expect(c.pve2!.gaps).toEqual([
      {
        from: t('02:05:00'),
        to: t('02:25:00'),
        reason: 'source_unreachable',
        detail: 'ECONNREFUSED',
        at: t('02:25:00'),
      },
    ]);
    expect(c.pve3!.clockOffsetSeconds).toBe(42);
    const n = await recordApiGap(driver, {
      apiUrl: `http://${scope}.invalid:8006`,
      since: t('00:00:00'),
      to: t('02:40:00'),
      reason: 'source_unreachable',
      detail: '/cluster/status: timeout',
    });
    expect(n).toBe(3);
    c = await coverage();
    expect(c.pve3!.gaps[0]).toEqual({
      from: t('02:10:00'),
      to: t('02:40:00'),
      reason: 'source_unreachable',
      detail: '/cluster/status: timeout',
      at: t('02:40:00'),
    });
  });
});
