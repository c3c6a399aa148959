import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine, running the suite in
    // series. Most files wait on databases, spawned servers and timers, so two workers cut the wall time.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          // Web tests choose the jsdom environment in their own header (`@vitest-environment jsdom`).
          include: ['packages/shared/test/**/*.test.ts', 'packages/server/test/unit/**/*.test.ts', 'packages/web/test/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['packages/server/test/integration/**/*.test.ts'],
          globalSetup: ['packages/server/test/support/server-bundle.setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // Service rules (tokens, channels, redemption, users) on a real SQLite database, without HTTP.
          name: 'service',
          include: ['packages/server/test/service/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          // A page under a loaded machine (CI runs every project at once) can take longer than poll's 1 s default.
          expect: { poll: { timeout: 10_000 } },
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
