import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// Node's module compile cache (V8 code cache on disk; a changed file is compiled again). Its gain is the server each
// browser file starts (harness.ts passes the variable on): about 3.5 s of CPU, mostly compiling the bundle's modules,
// a quarter less once cached (3.4-4.0 s -> 2.7-3.0 s measured). Set here, the workers inherit it; Node 20 ignores it.
// Same folder as Node's own default.
process.env.NODE_COMPILE_CACHE ??= path.join(os.tmpdir(), 'node-compile-cache');

/** The browser test that measures time to first content: it must not share the machine with other files. */
const LOAD_TIMING_TEST = 'test/browser/load-login.test.ts';

export default defineConfig({
  test: {
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine, running the suite in
    // series. Most files wait on databases, spawned servers, browsers and timers: with three workers an idle run
    // kept the two cores busy 57% of its 14 minutes. Four took 12 min 50 s on a fast day, but on a slower one (CI
    // 33–37 min, both cores saturated throughout) four browsers beside the other tiers missed action timeouts;
    // once the cores are saturated a fourth worker adds waiting, not throughput.
    maxWorkers: 3,
    // The run ends with its slowest files and each project's time (where CI's minutes go).
    reporters: ['default', './scripts/slowest-files-reporter.mjs'],
    projects: [
      {
        test: {
          name: 'unit',
          // Web tests choose the jsdom environment in their own header (`@vitest-environment jsdom`).
          include: [
            'packages/shared/test/**/*.test.ts',
            'packages/server/test/unit/**/*.test.ts',
            'packages/web/test/**/*.test.ts',
          ],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['packages/server/test/integration/**/*.test.ts'],
          // Files share a worker's modules instead of importing them again each: most files build the app in-process,
          // importing the server's every module (CI's import phase summed 1,553 s of 9,420; twenty such files took
          // 492 s isolated, 214 s not, one worker each). A file leaves no state behind outside its own objects: the
          // global HTTP dispatcher (put back, or a default one), fake timers, environment variables.
          isolate: false,
          // Fails a file that leaves environment variables or fake timers changed.
          setupFiles: ['packages/server/test/support/shared-worker.setup.ts'],
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
          // Each browser file has its own server, data folder and Chromium, so they run beside the other files:
          // run one after another at the end, they left a core idle for about 8 minutes of CI.
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          exclude: [LOAD_TIMING_TEST],
          // A page under a loaded machine (CI runs every project at once) can take longer than poll's 1 s default.
          expect: { poll: { timeout: 10_000 } },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          // The login page's load time is measured: alone, after every other file (vitest runs files that cannot
          // share the machine last).
          name: 'browser-load',
          include: [LOAD_TIMING_TEST],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
