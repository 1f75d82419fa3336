import { defineConfig } from 'vitest/config';

/**
 * `pnpm soak` (docs/decisions/0251): the chaos soak, one file, on its own. It is not in
 * `vitest.config.ts`'s projects, so `npm test` never runs it: it lasts minutes and saturates
 * the machine on purpose.
 */
export default defineConfig({
  test: {
    include: ['test/soak/*.soak.test.ts'],
    globalSetup: ['libs/testing/src/global-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 180_000,
  },
});
