// `npm test`: type-checks, lints, checks the dependency rules (`npm run deps`), builds the console, then runs unit,
// integration (SQLite, PostgreSQL, MariaDB, Redis) and browser tests in one vitest run.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { buildConsole } from './console-build.mjs';

const root = path.resolve(import.meta.dirname, '..');
const run = (cmd, args) => {
  const res = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) process.exit(res.status ?? 1);
};
run('npm', ['run', 'typecheck']);
run('npm', ['run', 'lint']);
run('npm', ['run', 'deps']);
run('npm', ['run', 'format:check']);
buildConsole();
run(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)]);
