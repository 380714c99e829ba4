import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupCommit, groupCommitStats } from '../../../src/graph/db/group-commit.js';
import { decisionById } from '../../../src/graph/decisions.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { loadStartupPolicy } from '../../../src/policy/startup.js';
import { classifyAction } from '../../../src/services/gate.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const deps = serviceDeps(driver, await loadStartupPolicy(undefined));
const vm = (n: number) => `proxmox:${scope}/qemu/${100 + n}`;
const PROBE = 'CREATE (n:GroupCommitProbe {id: row.id, v: row.v}) RETURN n.id AS id, n.v AS v';
const stats = (label: string) =>
  groupCommitStats(driver).get(label) ?? { transactions: 0, rows: 0, retries: 0, fallbacks: 0, commitMs: 0 };

beforeAll(async () => {
  await upsertResources(
    driver,
    Array.from({ length: 10 }, (_, n) => ({
      id: vm(n),
      kind: 'vm' as const,
      provider: 'proxmox' as const,
      name: `vm${n}-${scope}`,
      state: 'running',
    })),
  );
});

afterAll(async () => {
  await driver.executeQuery('MATCH (d:Decision) WHERE d.principal CONTAINS $scope DETACH DELETE d', { scope });
});

const probes = async () =>
  (
    await driver.executeQuery('MATCH (n:GroupCommitProbe) WHERE n.id CONTAINS $scope RETURN n.id AS id, n.v AS v', {
      scope,
    })
  ).records.map((r) => ({ id: r.get('id') as string, v: r.get('v') as string }));

describe('group commit', () => {
  it('writes 50 concurrent callers in fewer transactions, each answered with its own row once stored', async () => {
    const before = stats('probe');
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: `${scope}-a${i}`, v: `value ${i}` }));
    const answers = await Promise.all(rows.map((row) => groupCommit(driver, 'probe', PROBE, row, ['id', 'v'])));
    answers.forEach((records, i) => {
      expect(records.map((r) => ({ id: r.get('id') as string, v: r.get('v') as string }))).toEqual([rows[i]]);
    });
    const after = stats('probe');
    expect(after.rows - before.rows).toBe(50);
    expect(after.transactions - before.transactions).toBeLessThan(50);
    expect((await probes()).filter((p) => p.id.includes('-a')).sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
      [...rows].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
  });

  it('one row Neo4j refuses fails only its caller; the others are stored', async () => {
    const before = stats('probe');
    const rows: Record<string, unknown>[] = Array.from({ length: 20 }, (_, i) => ({
      id: `${scope}-b${i}`,
      v: `v${i}`,
    }));
    // A map is not a property value: Neo4j refuses this row's CREATE.
    rows[7] = { id: `${scope}-b7`, v: { nested: true } };
    const settled = await Promise.allSettled(rows.map((row) => groupCommit(driver, 'probe', PROBE, row, ['id', 'v'])));
    expect(settled.map((s) => s.status)).toEqual(rows.map((_, i) => (i === 7 ? 'rejected' : 'fulfilled')));
    expect((settled[7] as PromiseRejectedResult).reason).toMatchObject({
      code: expect.stringMatching(/^Neo\.ClientError\./),
    });
    expect(stats('probe').fallbacks - before.fallbacks).toBe(1);
    const stored = (await probes()).filter((p) => p.id.includes('-b')).map((p) => p.id);
    expect(stored.sort()).toEqual(
      rows
        .filter((_, i) => i !== 7)
        .map((r) => r.id as string)
        .sort(),
    );
  });

  it("two texts in one batch: each caller gets its own text's row; a row one text refuses fails only its caller", async () => {
    const OTHER = "CREATE (n:GroupCommitProbe {id: row.id, v: row.v + '!'}) RETURN n.v AS v, n.id AS id";
    const rows = Array.from({ length: 12 }, (_, i) => ({
      id: `${scope}-c${i}`,
      v: i === 9 ? { nested: true } : `c${i}`,
    }));
    const settled = await Promise.allSettled(
      rows.map((row, i) =>
        i % 2 === 0
          ? groupCommit(driver, 'probe', PROBE, row, ['id', 'v'])
          : groupCommit(driver, 'probe', OTHER, row, ['v', 'id']),
      ),
    );
    expect(settled.map((s) => s.status)).toEqual(rows.map((_, i) => (i === 9 ? 'rejected' : 'fulfilled')));
    settled.forEach((s, i) => {
      if (s.status !== 'fulfilled') return;
      expect(s.value.map((r) => r.get('v') as string)).toEqual([i % 2 === 0 ? `c${i}` : `c${i}!`]);
    });
    const stored = (await probes()).filter((p) => p.id.includes('-c')).map((p) => p.id);
    expect(stored.sort()).toEqual(
      rows
        .filter((_, i) => i !== 9)
        .map((r) => r.id)
        .sort(),
    );
  });

  it("texts past the merged statement's eight still commit, each caller answered with its own row", async () => {
    // Twelve texts more than the process has written: those past the eighth go as a managed transaction.
    const extra = Array.from(
      { length: 12 },
      (_, k) => `CREATE (n:GroupCommitProbe {id: row.id, v: row.v + '#${k}'}) RETURN n.v AS v`,
    );
    const rows = Array.from({ length: 36 }, (_, i) => ({ id: `${scope}-d${i}`, v: `d${i}` }));
    const answers = await Promise.all(rows.map((row, i) => groupCommit(driver, 'probe', extra[i % 12]!, row, ['v'])));
    answers.forEach((records, i) => expect(records.map((r) => r.get('v') as string)).toEqual([`d${i}#${i % 12}`]));
    const stored = (await probes()).filter((p) => p.id.includes('-d'));
    expect(stored).toHaveLength(36);
  });

  it('refuses a column that is not a name, before anything is written', () => {
    expect(() =>
      groupCommit(driver, 'probe', `${PROBE} // new`, { id: `${scope}-e`, v: 'x' }, ['id; MATCH (n) DELETE n']),
    ).toThrow(/group commit column .*not a name/);
  });

  it('50 concurrent gate questions: every decision and its audit line recorded, in fewer transactions', async () => {
    const agent = principalOf(scope, 'agent');
    const before = stats('decision');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => classifyAction(deps, agent, { target: vm(i % 10), action: 'restart' })),
    );
    const after = stats('decision');
    expect(after.rows - before.rows).toBe(50);
    expect(after.transactions - before.transactions).toBeLessThan(50);
    for (const [i, a] of answers.entries()) {
      const stored = await decisionById(driver, a.decisionId!);
      expect(stored).toMatchObject({ id: a.decisionId, principal: agent.name });
      expect(JSON.parse(stored!.target)).toMatchObject({ id: vm(i % 10) });
      expect(JSON.parse(stored!.answer)).toMatchObject({ riskClass: a.riskClass, approval: a.approval });
    }
    const lines = await auditOf(driver, agent);
    expect(lines).toHaveLength(50);
    expect(new Set(lines.map((l) => l.targetIds[0]))).toEqual(new Set(Array.from({ length: 10 }, (_, n) => vm(n))));
  });
});
