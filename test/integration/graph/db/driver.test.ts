import { describe, expect, it } from 'vitest';
import { useGraph } from '../../../support/graph.js';

const { driver } = useGraph();

describe('createDriver', () => {
  it('asks Neo4j for no notifications: nothing reads them, and each statement paid for them', async () => {
    // A walk over a relationship type the graph may not have: Neo4j would warn on every statement.
    const { summary } = await driver.executeQuery('MATCH (x)<-[:NO_SUCH_TYPE_YET]-(y) RETURN count(y) AS n', {});
    expect(summary.notifications).toEqual([]);
    expect(summary.gqlStatusObjects.filter((s) => s.gqlStatus.startsWith('01'))).toEqual([]);
  });
});
