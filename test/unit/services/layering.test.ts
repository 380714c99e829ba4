import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPackageRoot } from '../../../src/package-root.js';

const root = findPackageRoot();

/** Every relative import of the .ts files under `dir`, as repository paths (`src/graph/edges.js`). */
function importsUnder(dir: string): Array<{ file: string; target: string }> {
  const files = readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  return files.flatMap((f) => {
    const file = join(dir, f);
    const text = readFileSync(join(root, file), 'utf8');
    return [...text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)].map((m) => ({
      file,
      target: relative(root, resolve(root, dirname(file), m[1]!)),
    }));
  });
}

const outside = (dir: string, allowed: string[]) =>
  importsUnder(dir).filter(({ target }) => !allowed.some((a) => target.startsWith(a)));

/**
 * The services are the API's only way into the graph, the correlator and ingest: GraphQL resolvers
 * and the server call them, so a second API surface calling them answers alike.
 */
describe('layering of the API', () => {
  it('resolvers import only services, model, generated types and their own files', () => {
    expect(outside('resolvers', ['src/services/', 'src/model/', 'src/generated/', 'resolvers/'])).toEqual([]);
  });

  it('the server reaches the graph only through the services', () => {
    const forbidden = ['src/graph/', 'correlator/', 'src/ingest/'];
    expect(importsUnder('src/server').filter(({ target }) => forbidden.some((f) => target.startsWith(f)))).toEqual([]);
  });

  it('services never import the API surfaces built on them', () => {
    const forbidden = ['resolvers/', 'src/server/'];
    expect(importsUnder('src/services').filter(({ target }) => forbidden.some((f) => target.startsWith(f)))).toEqual(
      [],
    );
  });
});
