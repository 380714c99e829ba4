import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Two projects: `unit` (pure logic, no database) and `graph` (integration and end-to-end tests that
 * need the real Neo4j the globalSetup provisions). `vitest run test/unit` starts no database.
 */
export default defineConfig({
  // One graphql for everything, as under plain Node: otherwise the tests' own imports would get its
  // ESM build while yoga and @graphql-tools get the CommonJS one, and schema objects would not match.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' },
      },
      {
        extends: true,
        test: {
          name: 'graph',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/setup/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // One Neo4j serves every file; files run one at a time on this 2-core machine.
          fileParallelism: false,
        },
      },
    ],
  },
});
