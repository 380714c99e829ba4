import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (pure logic, no database) and `graph` (integration and end-to-end tests that
 * need the real Neo4j the globalSetup provisions). `vitest run test/unit` starts no database.
 */
export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' },
      },
      {
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
