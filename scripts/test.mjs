// `npm test`: checks first that PostgreSQL, MariaDB, Redis, Chromium and nginx are there (scripts/test-services.mjs:
// a missing one stops the run with what to do), then type-checks, lints, checks the dependency rules (`npm run deps`)
// and the formatting, builds the console, then runs unit, integration (SQLite, PostgreSQL, MariaDB, Redis) and
// browser tests in one vitest run.
// The five steps before vitest are independent and each mostly one-threaded: they run two at a time (one per core
// of the CI machine), each one's output printed whole when it ends, so the logs do not interleave.
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { preflight } from './test-services.mjs';

const root = path.resolve(import.meta.dirname, '..');
// Node's module compile cache for the steps and vitest (see vitest.config.ts: mainly the servers the tests start).
process.env.NODE_COMPILE_CACHE ??= path.join(os.tmpdir(), 'node-compile-cache');
/** Steps run at once before the tests (the CI machine has two cores). */
const CHECKS_AT_ONCE = Math.max(1, Math.min(2, os.availableParallelism()));
const CHECKS = [
  ['typecheck', 'npm', ['run', 'typecheck']],
  ['lint', 'npm', ['run', 'lint']],
  ['deps', 'npm', ['run', 'deps']],
  ['format', 'npm', ['run', 'format:check']],
  ['console build', 'npm', ['run', 'build', '-w', '@tollway/web']],
];

/** Runs one step with its output collected; resolves with its exit status and output. */
function runCollected(name, cmd, args) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (err) => out.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code) =>
      resolve({ name, code: code ?? 1, output: Buffer.concat(out).toString(), seconds: (Date.now() - started) / 1000 }),
    );
  });
}

async function runChecks() {
  const queue = [...CHECKS];
  const failed = [];
  const worker = async () => {
    for (let step = queue.shift(); step; step = queue.shift()) {
      const res = await runCollected(...step);
      process.stdout.write(
        `\n== ${res.name}: ${res.code === 0 ? 'ok' : `failed (exit ${res.code})`} in ${res.seconds.toFixed(1)} s\n${res.output}`,
      );
      if (res.code !== 0) failed.push(res.name);
    }
  };
  await Promise.all(Array.from({ length: CHECKS_AT_ONCE }, worker));
  if (failed.length > 0) {
    console.error(`\nnpm test: ${failed.join(', ')} failed`);
    process.exit(1);
  }
}

if (!(await preflight())) process.exit(1);
await runChecks();
const res = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
process.exit(res.status ?? 1);
