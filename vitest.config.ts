import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const exclude = ['**/node_modules/**', '**/dist/**', '.tools/**'];

/**
 * Two projects: `unit` (pure code, no servers) and `int`, which holds the integration
 * (`*.int.test.ts`) and end-to-end (`*.e2e.test.ts`) tiers. Both server tiers share one
 * global setup, so one Postgres and one NATS serve the whole run.
 */
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['**/*.unit.test.ts'], exclude } },
      {
        test: {
          name: 'int',
          include: ['**/*.int.test.ts', '**/*.e2e.test.ts'],
          exclude,
          globalSetup: ['libs/testing/src/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // Server tests mostly wait on I/O: run at least 3 files at once even on 2 cores
          // (vitest's default is cores - 1). A different maxWorkers needs its own group,
          // so the int tier runs after the unit tier.
          maxWorkers: Math.max(3, availableParallelism() - 1),
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
