import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { usesLegacySqliteDriver } from '../../src/db/sqlite-driver.js';

const DRIVER_MODULE = path.resolve(import.meta.dirname, '../../src/db/sqlite-driver.ts');
const STATEMENTS = 20_000;
/** Idle time after the statements are dropped; line 12 aborted within 0.3 s of it on Node 24.21. */
const IDLE_MS = 2000;
/** The child process (tsx, the driver, 20,000 statements, the idle wait) takes about 3 s idle; CI may be busy. */
const CHILD_TEST_TIMEOUT_MS = 30_000;

describe('the SQLite driver line', () => {
  it('keeps line 12 for Node 20 only', () => {
    expect(usesLegacySqliteDriver('20.19.0')).toBe(true);
    expect(usesLegacySqliteDriver('22.12.0')).toBe(false);
    expect(usesLegacySqliteDriver('24.21.0')).toBe(false);
    expect(usesLegacySqliteDriver('26.10.0')).toBe(false);
  });

  it(
    'survives statements collected by the garbage collector on this runtime, and exits 0',
    { timeout: CHILD_TEST_TIMEOUT_MS },
    () => {
      // Line 12 on Node 24.19+ aborted within a second of this: a statement collected by a garbage collection the
      // platform ran between calls removed its cleanup hook with no environment entered.
      const script = `
      const { loadSqliteDriver } = await import(${JSON.stringify(DRIVER_MODULE)});
      const Sqlite = await loadSqliteDriver();
      const db = new Sqlite(':memory:');
      db.exec('create table t (v integer)');
      let garbage = [];
      for (let i = 0; i < ${STATEMENTS}; i++) {
        db.prepare('insert into t values (?)').run(i);
        garbage.push(new Array(100).fill(i));
      }
      garbage = null;
      setTimeout(() => console.log(db.prepare('select count(*) n from t').get().n), ${IDLE_MS});
    `;
      const res = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      expect(res.stderr).not.toMatch(/Assertion failed/);
      expect(res.status).toBe(0);
      expect(res.stdout.trim()).toBe(String(STATEMENTS));
    },
  );
});
