import type BetterSqlite3 from 'better-sqlite3';

/**
 * better-sqlite3 for the running Node.js. Line 13 (Node-API, prebuilt) is the one that survives Node 24.19+: line 12's
 * statements abort the process when garbage-collected there (`RemoveEnvironmentCleanupHook`, env != nullptr). Line 13
 * crashes on Node 20, so Node 20 keeps line 12 under the alias `better-sqlite3-node20`.
 */
export type SqliteDriver = typeof BetterSqlite3;

const FIRST_NODE_OF_LINE_13 = 22;
const LEGACY_PACKAGE = 'better-sqlite3-node20';

export function usesLegacySqliteDriver(nodeVersion = process.versions.node): boolean {
  return Number(nodeVersion.split('.')[0]) < FIRST_NODE_OF_LINE_13;
}

let loaded: Promise<SqliteDriver> | undefined;

/** The package name of the driver line for the running Node.js. */
export function sqliteDriverPackage(): string {
  return usesLegacySqliteDriver() ? LEGACY_PACKAGE : 'better-sqlite3';
}

export function loadSqliteDriver(): Promise<SqliteDriver> {
  loaded ??= import(sqliteDriverPackage()).then(
    (mod: { default: SqliteDriver }) => mod.default,
    (err: Error) => {
      throw new Error(
        `the SQLite driver for Node ${process.versions.node} is not installed (${err.message}); run npm ci`,
      );
    },
  );
  return loaded;
}
