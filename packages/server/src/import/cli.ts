// `npm run import -- --from <DSN> …`: imports a new-api or one-api database into the one SQL_DSN / SQLITE_PATH names.
import path from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { connectDatabase, type Db } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { SecretBox } from '../lib/secret-box.js';
import { parseImportArgs, USAGE, type ImportArgs } from './args.js';
import { openDryTarget, type DryTarget } from './dry-run.js';
import { RefusedError } from './refused.js';
import { runImport } from './run.js';
import { summaryLines } from './summary.js';

/**
 * Exit codes (docs/switching-from-new-api.md): 0 done (also when nothing was left to do), 1 failed on the way,
 * 2 refused before writing (bad arguments or configuration, a target holding other data without --merge, a user
 * mapping needed or wrong, a wrong CRYPTO_SECRET), 3 written but a quota total differs from the source's.
 */
export const EXIT = { ok: 0, failed: 1, refused: 2, mismatch: 3 } as const;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** A SQLite file named two ways (relative, `sqlite:` prefix, driver options) is the same file. */
const sqliteFile = (dsn: string) => path.resolve(dsn.replace(/^(sqlite|file):(\/\/)?/, '').replace(/\?.*$/, ''));
const isServer = (dsn: string) => /^[a-z]+:\/\//.test(dsn) && !/^(sqlite|file):/.test(dsn);

function sameDatabase(from: string, target: string): boolean {
  if (from === target) return true;
  return !isServer(from) && !isServer(target) && !from.includes('@tcp(') && sqliteFile(from) === sqliteFile(target);
}

/** The target databases: migrated for a real run; for a dry run, nothing is created or migrated (dry-run.ts). */
async function openTargets(config: ReturnType<typeof loadConfig>, dryRun: boolean) {
  const opened: (Db | DryTarget)[] = [];
  const close = async () => {
    for (const o of opened.reverse()) await o.close();
  };
  try {
    if (dryRun) {
      const main = await openDryTarget(config.sqlDsn, config.sqlitePath, 'SQL_DSN');
      opened.push(main);
      const logs = config.logSqlDsn ? await openDryTarget(config.logSqlDsn, '', 'LOG_SQL_DSN') : undefined;
      if (logs) opened.push(logs);
      return { target: main.db, logTarget: logs?.db, close };
    }
    const target = await connectDatabase(config.sqlDsn, config.sqlitePath);
    opened.push(target);
    await migrateToLatest(target);
    let logTarget: Db | undefined;
    if (config.logSqlDsn) {
      logTarget = await connectDatabase(config.logSqlDsn, '', 'LOG_SQL_DSN');
      opened.push(logTarget);
      await migrateToLatest(logTarget);
    }
    return { target, logTarget, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function importWith(args: ImportArgs, env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const config = loadConfig(env);
  if (sameDatabase(args.from, config.sqlDsn || config.sqlitePath)) {
    io.err(
      'tollway import: --from names the database Tollway writes (SQL_DSN / SQLITE_PATH); point Tollway at a new one\n',
    );
    return EXIT.refused;
  }
  const log = pino({ level: 'warn' }, pino.destination(2));
  const { target, logTarget, close } = await openTargets(config, args.dryRun);
  try {
    const result = await runImport({
      from: args.from,
      logsFrom: args.logsFrom || undefined,
      target,
      logTarget,
      box: new SecretBox(config.cryptoSecret),
      log,
      merge: args.merge,
      users: { mergeRoot: args.mergeRoot, mergeUsers: args.mergeUsers, renameUsers: args.renameUsers },
      logsSince: args.logsSince,
      dryRun: args.dryRun,
      progress: (line) => io.err(`${line}\n`),
    });
    io.out(`${summaryLines(result).join('\n')}\n`);
    return result.quota.every((q) => q.ok) ? EXIT.ok : EXIT.mismatch;
  } finally {
    await close();
  }
}

/** The command: parses `argv`, imports, prints the summary on `out` and progress on `err`; returns the exit code. */
export async function importCommand(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let args: ImportArgs;
  try {
    args = parseImportArgs(argv);
  } catch (err) {
    io.err(`tollway import: ${(err as Error).message}\n${USAGE}\n`);
    return EXIT.refused;
  }
  try {
    return await importWith(args, env, io);
  } catch (err) {
    const refused = err instanceof RefusedError || err instanceof ConfigError;
    io.err(`tollway import: ${(err as Error).message}\n`);
    return refused ? EXIT.refused : EXIT.failed;
  }
}
