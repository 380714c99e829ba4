import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { graphiqlAssetDir, graphiqlVersionOfYoga, renderLocalGraphiQL } from '../../../src/server/graphiql.js';

describe('GraphiQL page', () => {
  it('serves the pinned @graphql-yoga/graphiql dependency, the version graphql-yoga names', () => {
    // A yoga upgrade that names another GraphiQL fails here: pin @graphql-yoga/graphiql to it.
    expect(graphiqlVersionOfYoga()).toMatch(/^\d+\.\d+\.\d+/);
    const dir = graphiqlAssetDir();
    expect(dir, `@graphql-yoga/graphiql@${graphiqlVersionOfYoga()} is not installed`).not.toBeNull();
    expect(existsSync(join(dir!, 'yoga-graphiql.umd.js'))).toBe(true);
  });

  it('loads nothing from another host and opens on an aitia query with the header to fill in', () => {
    const html = renderLocalGraphiQL(undefined);
    expect(html).not.toMatch(/(src|href)=["']?https?:/);
    expect(html).not.toContain('unpkg.com');
    expect(html).not.toContain('githubusercontent');
    expect(html).toContain('/graphql/assets/yoga-graphiql.umd.js');
    expect(html).toContain('about { version principal role policyDigest }');
    expect(html).toContain('Bearer <token>');
  });
});
