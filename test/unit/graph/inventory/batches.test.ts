import type { Driver } from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { DEADLOCK } from '../../../../src/graph/db/guarded-driver.js';
import type { PassRow } from '../../../../src/graph/inventory/write.js';
import { lockOrderOf, writeKind } from '../../../../src/graph/inventory/batches.js';
import type { EdgeInput } from '../../../../src/model/index.js';

const vm = (n: number, host: string): PassRow => ({
  resource: { id: `proxmox:lab/qemu/${n}`, kind: 'vm', provider: 'proxmox', name: `vm${n}`, state: 'running' },
  edges: [
    { type: 'RUNS_ON', fromId: `proxmox:lab/qemu/${n}`, toId: host, provenance: 'observed', source: 'proxmox:lab' },
    {
      type: 'DEPENDS_ON',
      fromId: `proxmox:lab/qemu/${n}`,
      toId: 'proxmox:lab/cluster',
      provenance: 'observed',
      source: 'proxmox:lab',
    },
  ],
});

/** A driver that records each batch's first row id and fails the calls `fail` says to. */
function recordingDriver(fail: (firstId: string, attempt: number) => string | null) {
  const calls: string[] = [];
  const attempts = new Map<string, number>();
  const driver = {
    async executeQuery(_cypher: string, params: { rows: unknown[][] }) {
      const first = params.rows[0]![0] as string;
      const attempt = (attempts.get(first) ?? 0) + 1;
      attempts.set(first, attempt);
      await new Promise((r) => setTimeout(r, 5));
      const code = fail(first, attempt);
      calls.push(`${first}${code ? ' failed' : ''}`);
      if (code) throw Object.assign(new Error(code), { name: 'Neo4jError', code });
      return {
        records: [{ get: (k: string) => (k === 'written' ? params.rows.length : []) }],
        summary: { counters: { updates: () => ({ nodesCreated: params.rows.length, relationshipsCreated: 0 }) } },
      };
    },
  } as unknown as Driver;
  return { driver, calls };
}

const pass = (rows: PassRow[]) => ({
  batchSize: 2,
  concurrency: 2,
  stamp: { now: '2026-12-01T10:00:00Z', tag: 't' },
  order: lockOrderOf(new Map(rows.map((r) => [r.resource.id, r.edges as EdgeInput[]]))),
});

describe('writeKind: new rows in parallel create batches', () => {
  it('groups new rows by their least shared target and locks the busiest target last', () => {
    const rows = [vm(1, 'h2'), vm(2, 'h1'), vm(3, 'h2'), vm(4, 'h1')];
    const { rank, compare } = pass(rows).order;
    expect(rank.get('proxmox:lab/cluster')).toBe(4);
    expect(['proxmox:lab/cluster', 'h2', 'h1'].sort(compare)).toEqual(['h1', 'h2', 'proxmox:lab/cluster']);
  });

  it('a batch that deadlocks is written again alone once the others are done; results stay in batch order', async () => {
    const rows = [vm(1, 'h1'), vm(2, 'h1'), vm(3, 'h2'), vm(4, 'h2'), vm(5, 'h3'), vm(6, 'h3')];
    const { driver, calls } = recordingDriver((id, attempt) =>
      id === 'proxmox:lab/qemu/3' && attempt === 1 ? DEADLOCK : null,
    );
    const results = await writeKind(driver, 'vm', [...rows], [], pass(rows));
    expect(results.map((r) => r.written)).toEqual([2, 2, 2]);
    expect(calls.at(-1)).toBe('proxmox:lab/qemu/3');
    expect(calls).toContain('proxmox:lab/qemu/3 failed');
  });

  it('any other failure starts no further batch and is thrown once the running one has settled', async () => {
    const rows = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => vm(n, `h${n}`));
    const { driver, calls } = recordingDriver((id) =>
      id === 'proxmox:lab/qemu/1' ? 'Neo.ClientError.Statement.SyntaxError' : null,
    );
    await expect(writeKind(driver, 'vm', [...rows], [], pass(rows))).rejects.toMatchObject({
      code: 'Neo.ClientError.Statement.SyntaxError',
    });
    expect(calls).toHaveLength(2);
  });
});
