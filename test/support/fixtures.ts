import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Everything a test reads lives in the repository, under `test/fixtures/` (provenance in
 * test/fixtures/README.md). Resolved from this file, not the working directory, so a test runs from anywhere.
 */
export const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** Parses one fixture file, path relative to {@link FIXTURES}. */
export function readFixture(relative: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, relative), 'utf8'));
}

/** The `.json` files of one fixture folder, sorted. */
export function fixtureFiles(folder: string): string[] {
  return readdirSync(join(FIXTURES, folder))
    .filter((f) => f.endsWith('.json'))
    .sort();
}
