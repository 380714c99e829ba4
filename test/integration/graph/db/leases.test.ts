import { afterAll, describe, expect, it } from 'vitest';
import { checkFenceTx, claimLease, fencedDriver, readLeases, releaseLease } from '../../../../src/graph/db/leases.js';
import { isLeaseLost, type LeaseLostError } from '../../../../src/model/lease.js';
import { useGraph } from '../../../support/graph.js';

const { driver, scope } = useGraph();
const name = `poll:${scope}`;

afterAll(async () => {
  await driver.executeQuery('MATCH (l:Lease) WHERE l.name CONTAINS $scope DETACH DELETE l', { scope });
});

/** Ends the lease now (as if its holder had died a lease ago) without changing holder or token. */
const expire = (lease: string) =>
  driver.executeQuery('MATCH (l:Lease {name: $lease}) SET l.expiresAt = datetime() - duration({seconds: 1})', {
    lease,
  });

const marks = (id: string) =>
  driver
    .executeQuery('MATCH (m:LeaseTestMark {id: $id}) RETURN count(m) AS n', { id })
    .then((r) => Number(r.records[0]!.get('n')));

describe('leases', () => {
  it('one holder at a time: acquire, renew with the same token, wait; after expiry the other acquires a newer token', async () => {
    const a1 = await claimLease(driver, { name, holder: 'a', seconds: 30 });
    expect(a1).toMatchObject({ action: 'acquire' });
    const b1 = await claimLease(driver, { name, holder: 'b', seconds: 30 });
    expect(b1).toMatchObject({ action: 'wait', holder: 'a', token: a1.token });
    const a2 = await claimLease(driver, { name, holder: 'a', seconds: 30 });
    expect(a2).toMatchObject({ action: 'renew', token: a1.token });
    await expire(name);
    const b2 = await claimLease(driver, { name, holder: 'b', seconds: 30 });
    expect(b2).toMatchObject({ action: 'acquire', token: a1.token + 1 });
    expect((await readLeases(driver)).find((l) => l.name === name)).toMatchObject({ holder: 'b', token: b2.token });
  });

  it("a former holder's writes are refused by the fence and rolled back; the holder's go through", async () => {
    const lease = `${name}:fence`;
    const a = await claimLease(driver, { name: lease, holder: 'a', seconds: 30 });
    await expire(lease);
    const b = await claimLease(driver, { name: lease, holder: 'b', seconds: 30 });
    const lost: LeaseLostError[] = [];
    const stale = fencedDriver(driver, { lease, holder: 'a', token: a.token }, (e) => lost.push(e));
    const live = fencedDriver(driver, { lease, holder: 'b', token: b.token });
    const write = 'CREATE (:LeaseTestMark {id: $id})';
    await expect(stale.executeQuery(write, { id: `${scope}-a` })).rejects.toThrow(/LEASE_LOST/);
    const session = stale.session();
    await expect(session.executeWrite((tx) => tx.run(write, { id: `${scope}-a` }))).rejects.toSatisfy(isLeaseLost);
    await session.close();
    expect(lost).toHaveLength(2);
    expect(lost[0]!.current).toEqual({ holder: 'b', token: b.token });
    expect(await marks(`${scope}-a`)).toBe(0);
    const { records } = await live.executeQuery(`${write} RETURN $id AS id`, { id: `${scope}-b` });
    expect(records[0]!.get('id')).toBe(`${scope}-b`);
    expect(await marks(`${scope}-b`)).toBe(1);
    // Reads pass through; what cannot carry the fence is refused.
    const read = await stale.executeQuery('RETURN 1 AS one', {}, { routing: 'READ' });
    expect(read.records[0]!.get('one').toNumber()).toBe(1);
    const s2 = live.session();
    expect(() => s2.run('RETURN 1')).toThrow(/fence/);
    await s2.close();
    expect(await releaseLease(driver, { lease, holder: 'b', token: b.token })).toBe(true);
    expect(await claimLease(driver, { name: lease, holder: 'a', seconds: 30 })).toMatchObject({
      action: 'acquire',
      token: b.token + 1,
    });
  });

  it('a claim waits for a fenced write in flight: that write commits before the lease can pass on', async () => {
    const lease = `${name}:lock`;
    const a = await claimLease(driver, { name: lease, holder: 'a', seconds: 30 });
    await expire(lease);
    const order: string[] = [];
    let finish!: () => void;
    const held = new Promise<void>((r) => (finish = r));
    let fenced!: () => void;
    const checked = new Promise<void>((r) => (fenced = r));
    const session = driver.session();
    const write = session.executeWrite(async (tx) => {
      await checkFenceTx(tx, { lease, holder: 'a', token: a.token });
      fenced();
      await held;
      await tx.run('CREATE (:LeaseTestMark {id: $id})', { id: `${scope}-lock` });
      order.push('write');
    });
    await checked;
    const claim = claimLease(driver, { name: lease, holder: 'b', seconds: 30 }).then((c) => {
      order.push('claim');
      return c;
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(order).toEqual([]);
    finish();
    await write;
    await session.close();
    expect(await claim).toMatchObject({ action: 'acquire', token: a.token + 1 });
    expect(order).toEqual(['write', 'claim']);
  });
});
