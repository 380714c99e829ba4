import type { Driver } from 'neo4j-driver';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { isLeaseLost } from '../../../src/model/lease.js';
import { runUnderLease } from '../../../src/scheduler/lease-keeper.js';
import { useGraph } from '../../support/graph.js';
import { until } from '../../support/until.js';

const { driver, scope } = useGraph();
const name = `poll:${scope}`;
const log = createLogger(process.env.AITIA_TEST_LOG ?? 'silent');

afterAll(async () => {
  await driver.executeQuery(
    'MATCH (n) WHERE (n:Lease OR n:LeaseFence) AND n.name = $name OR (n:LeaseKeeperMark AND n.scope = $scope) DETACH DELETE n',
    { name, scope },
  );
});

it('one replica runs the loop; a lost lease stops it and nothing it writes after commits; the lease passes on within 2 × the lease; stop releases it', async () => {
  const seconds = 2;
  const running = new Set<string>();
  const refused: string[] = [];
  const keeper = (holder: string) =>
    runUnderLease({
      driver,
      name,
      lease: { holder, seconds },
      log,
      // A loop that writes through the fenced driver every 100 ms until stopped.
      start: (fenced: Driver) => {
        running.add(holder);
        let stop = false;
        const done = (async () => {
          while (!stop) {
            try {
              await fenced.executeQuery('CREATE (:LeaseKeeperMark {scope: $scope, holder: $holder})', {
                scope,
                holder,
              });
            } catch (err) {
              if (isLeaseLost(err)) refused.push(holder);
            }
            await new Promise((r) => setTimeout(r, 100));
          }
        })();
        return {
          async stop() {
            stop = true;
            await done;
            running.delete(holder);
          },
        };
      },
    });
  const a = keeper('a');
  await until('a to run', 10_000, () => running.size > 0);
  const b = keeper('b');
  await new Promise((r) => setTimeout(r, 2 * seconds * 1000));
  expect([...running]).toEqual(['a']);
  expect(b.fence).toBeNull();
  const first = a.fence!;

  // Another holder takes the lease (as after a partition): a's next write is refused and a stops.
  await driver.executeQuery(
    `MATCH (l:Lease {name: $name}), (f:LeaseFence {name: $name})
     SET l.holder = 'thief', l.token = l.token + 1, l.expiresAt = datetime() + duration({seconds: 1}),
         f.holder = 'thief', f.token = l.token`,
    { name },
  );
  const stolenAt = Date.now();
  const marksOf = async (holder: string) =>
    (
      await driver.executeQuery('MATCH (m:LeaseKeeperMark {scope: $scope, holder: $holder}) RETURN count(m) AS n', {
        scope,
        holder,
      })
    ).records[0]!.get('n').toNumber() as number;
  const beforeSteal = await marksOf('a');
  await until('a to stop', 5_000, () => running.size === 0);
  // Whichever stopped it first — its next write refused by the fence, or its renewal finding the
  // lease gone (under load the renewal may come first) — nothing a wrote committed after the steal.
  expect(await marksOf('a')).toBe(beforeSteal);
  expect(refused.every((h) => h === 'a')).toBe(true);
  // The thief's lease expires after 1 s: a or b takes it, with a newer token, within 2 × the lease.
  await until('a replica to run again', 2 * seconds * 1000 + 1000, () => running.size === 1);
  expect(Date.now() - stolenAt).toBeLessThan(1000 + 2 * seconds * 1000);
  const next = (a.fence ?? b.fence)!;
  expect(next.token).toBe(first.token + 2);

  // Stopping the holder releases the lease: the other takes it at its next claim.
  const [holder, other] = a.fence ? [a, b] : [b, a];
  const stoppedAt = Date.now();
  await holder.stop();
  await until('the other to run', seconds * 1000, () => other.fence !== null);
  expect(Date.now() - stoppedAt).toBeLessThan(seconds * 1000);
  await other.stop();
  expect(running.size).toBe(0);
  const { records } = await driver.executeQuery('MATCH (l:Lease {name: $name}) RETURN l.holder AS h', { name });
  expect(records[0]!.get('h')).toBeNull();
}, 60_000);
