import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The shared fixtures live beside the clone (`../shared/fixtures`), both here and in CI; tests run
 * with the repository root as cwd.
 */
export const SHARED_FIXTURES = resolve(process.cwd(), '../shared/fixtures');

/** Parses one fixture file, path relative to {@link SHARED_FIXTURES}. */
export function readFixture(relative: string): unknown {
  return JSON.parse(readFileSync(join(SHARED_FIXTURES, relative), 'utf8'));
}

/** The `.json` files of one fixture folder, sorted. */
export function fixtureFiles(folder: string): string[] {
  return readdirSync(join(SHARED_FIXTURES, folder))
    .filter((f) => f.endsWith('.json'))
    .sort();
}
