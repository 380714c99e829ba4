import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPackageRoot } from '../../../src/package-root.js';

const root = findPackageRoot();

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' || name === 'embedded' ? [] : sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** `x.health = …`, `x.lastCheckAt = …`, `x.last_check = …`, `x.last_check_at = …` in Cypher (not `==`/`<>` comparisons). */
const HEALTH_WRITE = /\b\w+\.(health|lastCheckAt|last_check|last_check_at)\s*=(?!=)/;

describe('only writeHealth (src/graph/checks.ts) writes health', () => {
  it('no other source file sets health, last_check or lastCheckAt on a node', () => {
    const writers = ['src', 'resolvers', 'correlator']
      .flatMap((d) => sources(join(root, d)))
      .filter((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .some((line) => HEALTH_WRITE.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*')),
      )
      .map((f) => relative(root, f));
    expect(writers).toEqual(['src/graph/checks.ts']);
    // …and there, only inside writeHealth.
    const text = readFileSync(join(root, 'src/graph/checks.ts'), 'utf8');
    const start = text.indexOf('export async function writeHealth(');
    const end = text.indexOf('\n}\n', start);
    expect(start).toBeGreaterThan(-1);
    const outside = (text.slice(0, start) + text.slice(end)).split('\n').filter((l) => HEALTH_WRITE.test(l));
    expect(outside).toEqual([]);
  });

  it('the pattern catches a write and ignores a comparison', () => {
    expect(HEALTH_WRITE.test("SET r.health = 'healthy'")).toBe(true);
    expect(HEALTH_WRITE.test('SET n.lastCheckAt = datetime()')).toBe(true);
    expect(HEALTH_WRITE.test("WHERE r.health <> 'unknown'")).toBe(false);
    expect(HEALTH_WRITE.test('if (a.health === b) {')).toBe(false);
  });
});
