import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The directory holding aitia's package.json, from source (src/) or from the build (dist/src/). */
export function findPackageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'aitia')
      return (cached = dir);
    dir = dirname(dir);
  }
  throw new Error(`aitia package root not found above ${import.meta.url}`);
}

/** The package version, reported by `about` and `--version`. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(findPackageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
