// `npm run test:sqlite`: the tiers that need no service (no PostgreSQL, MariaDB, Redis, Chromium, nginx or slapd), for a
// machine without them: unit, service, and the integration files on SQLite alone. An integration file that reaches
// PostgreSQL, MariaDB or Redis whatever TEST_DIALECTS says (two cluster nodes, the Redis ledger, the Compose
// deployment, a database named outright) is left out whole; `npm test` runs everything.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildConsole, consoleIsStale } from './console-build.mjs';

const root = path.resolve(import.meta.dirname, '..');
const INTEGRATION_DIR = 'packages/server/test/integration';

/** Code in a test file that reaches a service whatever TEST_DIALECTS says. */
export const NEEDS_A_SERVICE = [
  /\bTEST_REDIS\b/,
  /\buseTwoNodes\(/,
  /\buseLedgerWorld\(/,
  /\bstartComposeCluster\(/,
  /\bcreateTestDatabase\(\s*'(postgres|mysql)'/,
  /\bstartTestApp\(\s*'(postgres|mysql)'/,
  /\bstartSlapd\(/,
];

/** The integration files (relative to the repository) that need a service beyond SQLite. */
export function filesNeedingAService(dir = path.join(root, INTEGRATION_DIR)) {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      return NEEDS_A_SERVICE.some((re) => re.test(text));
    })
    .map((f) => path.posix.join(INTEGRATION_DIR, f.split(path.sep).join('/')))
    .sort();
}

if (process.argv[1] === import.meta.filename) {
  if (consoleIsStale()) buildConsole();
  const excluded = filesNeedingAService();
  console.log(`test:sqlite: unit, service and integration on SQLite; ${excluded.length} integration files left out`);
  const res = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--project',
      'unit',
      '--project',
      'service',
      '--project',
      'integration',
      ...excluded.flatMap((f) => ['--exclude', f]),
      ...process.argv.slice(2),
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, TEST_DIALECTS: 'sqlite' } },
  );
  process.exit(res.status ?? 1);
}
