// `npm run import -- --from <DSN> …`: imports a new-api or one-api database into the one SQL_DSN / SQLITE_PATH names.
import path from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { connectDatabase, type Db } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { SecretBox } from '../lib/secret-box.js';
import { parseImportArgs, USAGE } from './args.js';
import { RefusedError, runImport } from './run.js';
import { summaryLines } from './summary.js';

/** Exit codes: refused or bad input 2, quota mismatch 3, other failure 1. */
const EXIT_REFUSED = 2;
const EXIT_MISMATCH = 3;

/** A SQLite file named two ways (relative, `sqlite:` prefix, driver options) is the same file. */
const sqliteFile = (dsn: string) => path.resolve(dsn.replace(/^(sqlite|file):(\/\/)?/, '').replace(/\?.*$/, ''));
const isServer = (dsn: string) => /^[a-z]+:\/\//.test(dsn) && !/^(sqlite|file):/.test(dsn);

function sameDatabase(from: string, target: string): boolean {
  if (from === target) return true;
  return !isServer(from) && !isServer(target) && !from.includes('@tcp(') && sqliteFile(from) === sqliteFile(target);
}

async function main(): Promise<number> {
  let args;
  try {
    args = parseImportArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`tollway import: ${(err as Error).message}\n${USAGE}\n`);
    return EXIT_REFUSED;
  }
  const config = loadConfig(process.env);
  if (sameDatabase(args.from, config.sqlDsn || config.sqlitePath)) {
    process.stderr.write(
      'tollway import: --from names the database Tollway writes (SQL_DSN / SQLITE_PATH); point Tollway at a new one\n',
    );
    return EXIT_REFUSED;
  }
  const log = pino({ level: 'warn' }, pino.destination(2));
  const target = await connectDatabase(config.sqlDsn, config.sqlitePath);
  let logTarget: Db | undefined;
  try {
    await migrateToLatest(target);
    if (config.logSqlDsn) {
      logTarget = await connectDatabase(config.logSqlDsn, '', 'LOG_SQL_DSN');
      await migrateToLatest(logTarget);
    }
    const result = await runImport({
      from: args.from,
      logsFrom: args.logsFrom || undefined,
      target,
      logTarget,
      box: new SecretBox(config.cryptoSecret),
      log,
      merge: args.merge,
      logsSince: args.logsSince,
      dryRun: args.dryRun,
      progress: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(`${summaryLines(result, args.dryRun).join('\n')}\n`);
    return result.quota.every((q) => q.ok) ? 0 : EXIT_MISMATCH;
  } finally {
    await logTarget?.close();
    await target.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const refused = err instanceof RefusedError || err instanceof ConfigError;
    process.stderr.write(`tollway import: ${(err as Error).message}\n`);
    process.exit(refused ? EXIT_REFUSED : 1);
  },
);
