// Builds the client compatibility table (docs/using/clients.md) from the conformance suite (clients-*.test.ts, SQLite): every
// test named `<client> · <feature> · <channel>` is one cell. Runs the suite unless given a report:
//   node scripts/compat-table.mjs [--from <vitest-json-report>]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const testDir = 'packages/server/test/integration';
const readmePath = path.join(root, 'docs/using/clients.md');
const compatSource = path.join(root, 'packages/server/test/support/compat.ts');
const START = '<!-- compat:start -->';
const END = '<!-- compat:end -->';
const SEPARATOR = ' · ';
const COLUMNS = [
  ['openai', 'OpenAI channel'],
  ['anthropic', 'Anthropic channel'],
  ['gemini', 'Gemini channel'],
];
const MARK = { passed: '✓', failed: '✗', none: '—' };

/** Runs the conformance files with vitest's JSON reporter; returns the report's path. */
function runSuite() {
  const files = fs
    .readdirSync(path.join(root, testDir))
    .filter((f) => /^clients-.*\.test\.ts$/.test(f))
    .sort()
    .map((f) => `${testDir}/${f}`);
  if (!files.length) throw new Error(`no clients-*.test.ts in ${testDir}`);
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compat-')), 'report.json');
  const args = [
    path.join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--project',
    'integration',
    ...files,
    '--reporter=json',
    `--outputFile=${out}`,
  ];
  const res = spawnSync(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, TEST_DIALECTS: 'sqlite' },
  });
  // Failing tests are table cells; only a run that wrote no report is an error.
  if (!fs.existsSync(out)) throw new Error(`vitest wrote no report (exit ${res.status})`);
  return out;
}

/** The table's row order of clients, as compat.ts lists them (others follow, by name). */
function clientOrder() {
  const m = /export const CLIENTS = \[([^\]]*)\]/.exec(fs.readFileSync(compatSource, 'utf8'));
  return m ? [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]) : [];
}

/** cells: client → feature → channel → 'passed' | 'failed' (features in the order first seen). */
function collect(report) {
  const cells = new Map();
  let total = 0;
  let passed = 0;
  for (const file of report.testResults ?? []) {
    for (const t of file.assertionResults ?? []) {
      const parts = String(t.title).split(SEPARATOR);
      if (parts.length !== 3) continue;
      const [client, feature, channel] = parts;
      const status = t.status === 'passed' ? 'passed' : t.status === 'failed' ? 'failed' : undefined;
      if (!status) continue;
      if (!cells.has(client)) cells.set(client, new Map());
      const features = cells.get(client);
      if (!features.has(feature)) features.set(feature, new Map());
      features.get(feature).set(channel, status);
      total++;
      if (status === 'passed') passed++;
    }
  }
  return { cells, total, passed };
}

function table({ cells, total, passed }) {
  const order = clientOrder();
  // A variant ('ai-sdk/openai (chat completions)') follows its client.
  const rank = (c) => {
    const i = order.findLastIndex((o) => c === o || c.startsWith(`${o} `));
    return i < 0 ? order.length : i;
  };
  const clients = [...cells.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const lines = [
    `| Client | Feature | ${COLUMNS.map(([, title]) => title).join(' | ')} |`,
    `|---|---|${COLUMNS.map(() => ':---:').join('|')}|`,
  ];
  for (const client of clients) {
    for (const [feature, byChannel] of cells.get(client)) {
      lines.push(
        `| \`${client}\` | ${feature} | ${COLUMNS.map(([key]) => MARK[byChannel.get(key) ?? 'none']).join(' | ')} |`,
      );
    }
  }
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  const date = new Date().toISOString().slice(0, 10);
  return [
    `${passed} of ${total} checks pass (${date}, commit \`${commit}\`). ${MARK.passed} passes, ${MARK.failed} fails, ${MARK.none} not applicable.`,
    '',
    ...lines,
  ].join('\n');
}

function writeReadme(body) {
  const readme = fs.readFileSync(readmePath, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/using/clients.md needs the markers ${START} and ${END}`);
  fs.writeFileSync(readmePath, `${readme.slice(0, start + START.length)}\n${body}\n${readme.slice(end)}`);
}

const fromIndex = process.argv.indexOf('--from');
const reportPath = fromIndex > 0 ? process.argv[fromIndex + 1] : runSuite();
const result = collect(JSON.parse(fs.readFileSync(reportPath, 'utf8')));
if (!result.total) throw new Error('the report has no `client · feature · channel` tests');
writeReadme(table(result));
console.log(`docs/using/clients.md: compatibility table updated (${result.passed} of ${result.total} checks pass)`);
