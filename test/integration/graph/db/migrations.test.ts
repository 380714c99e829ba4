import { describe, expect, it } from 'vitest';
import { appliedVersion, LATEST_MIGRATION, migrate, MIGRATIONS } from '../../../../src/graph/db/migrations.js';
import { useGraph } from '../../../support/graph.js';

const { driver } = useGraph();

describe('migrations', () => {
  it('are already applied by the test setup and run again without error', async () => {
    expect(await appliedVersion(driver)).toBe(LATEST_MIGRATION);
    const again = await migrate(driver);
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('survive two concurrent runners and re-applying every statement', async () => {
    const [a, b] = await Promise.all([migrate(driver), migrate(driver)]);
    expect(a.applied).toEqual([]);
    expect(b.applied).toEqual([]);
    // Re-run the statements themselves, as a fresh database racing another process would: each
    // step's at once, the steps in order (a later step drops what an earlier one created).
    for (const m of MIGRATIONS) await Promise.all(m.statements.map((s) => driver.executeQuery(s)));
    const { records } = await driver.executeQuery('SHOW CONSTRAINTS YIELD name RETURN collect(name) AS names');
    expect(records[0]!.get('names')).toEqual(
      expect.arrayContaining(['resource_id', 'event_id', 'transition_id', 'condition_id']),
    );
    const idx = await driver.executeQuery('SHOW INDEXES YIELD name RETURN collect(name) AS names');
    expect(idx.records[0]!.get('names')).toEqual(expect.arrayContaining(['resource_name', 'event_resource_time']));
    // Migration 10: kind filters use the kind labels, the first-sighting read the pass's id prefix.
    for (const dropped of ['resource_kind', 'resource_provider', 'resource_update_tag'])
      expect(idx.records[0]!.get('names')).not.toContain(dropped);
  });
});
