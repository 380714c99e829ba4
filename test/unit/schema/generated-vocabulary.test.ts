import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_SDL_FILE, vocabularySdl } from '../../../scripts/vocabulary-sdl.js';
import { findPackageRoot } from '../../../src/package-root.js';

describe(`schema/${GENERATED_SDL_FILE}`, () => {
  it('is what the generator writes from src/model now', async () => {
    const dir = join(findPackageRoot(), 'schema');
    expect(
      readFileSync(join(dir, GENERATED_SDL_FILE), 'utf8'),
      `schema/${GENERATED_SDL_FILE} is out of date: run \`npm run codegen\` and commit it`,
    ).toBe(await vocabularySdl(dir));
  });
});
