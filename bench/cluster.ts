// `npm run bench` rows for cluster mode: Tollway on PostgreSQL (a database created for the run) with its balances and
// limits in Redis (a key prefix of its own), against the SQLite Tollway: throughput in alternating rounds and added
// p50 over direct, and the CPU per request of each process (where the time goes). The database and the Redis keys
// are removed afterwards.
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { cpuShares, type ProcessGroup } from './cpu-shares.js';
import { addedLatency, sequentialLatency, type Target } from './measure.js';
import { alternatingRatio, RATIO_ROUNDS } from './nginx.js';
import { chatBody, startTollway } from './targets.js';

const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LATENCY_ROUNDS = 7;
const LATENCY_CALLS = 300;
const SCAN_BATCH = 500;

const admin = async <T>(run: (c: pg.Client) => Promise<T>): Promise<T> => {
  const c = new pg.Client({ connectionString: PG_ADMIN });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
};

/** Deletes every key under `prefix`. */
async function dropKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', SCAN_BATCH);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Settings for a Tollway in cluster mode on a new PostgreSQL database and a new Redis key prefix; `drop` removes both. */
export async function clusterEnv(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const name = `tollway_bench_${crypto.randomBytes(4).toString('hex')}`;
  const prefix = `${name}:`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const dsn = new URL(PG_ADMIN);
  dsn.pathname = `/${name}`;
  return {
    env: { SQL_DSN: dsn.toString(), REDIS_CONN_STRING: REDIS_URL, REDIS_KEY_PREFIX: prefix },
    drop: async () => {
      await dropKeys(REDIS_URL, prefix);
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name}`));
    },
  };
}

/** The cluster rows: `sqlite` is the SQLite Tollway of the same run (`sqlitePid` its process), `direct` the mock itself. */
export async function clusterRows(
  mock: { url: string; pid: number },
  sqlite: Target,
  sqlitePid: number,
  direct: Target,
  connections: number,
  seconds: number,
): Promise<string[]> {
  const mockUrl = mock.url;
  const db = await clusterEnv();
  const started = await startTollway(mockUrl, [], undefined, db.env).catch(async (err: unknown) => {
    await db.drop();
    throw err;
  });
  try {
    const cluster: Target = { ...started.target, name: 'Tollway on PostgreSQL + Redis' };
    const tp = await alternatingRatio(cluster, sqlite, chatBody, connections, seconds);
    for (const t of [direct, cluster]) await sequentialLatency(t, chatBody, LATENCY_CALLS, false);
    const lat = await addedLatency(cluster, direct, chatBody, false, LATENCY_ROUNDS, LATENCY_CALLS);
    // Where the time goes: every process on the machine shares its cores, the database and Redis included.
    const others: ProcessGroup[] = [
      { name: 'PostgreSQL', command: /^postgres/ },
      { name: 'Redis', command: /^redis-server/ },
      { name: 'mock', pids: [mock.pid] },
      { name: 'load generator', pids: [process.pid] },
    ];
    const onSqlite = await cpuShares(sqlite, chatBody, connections, seconds, [
      { name: 'Tollway', pids: [sqlitePid] },
      ...others,
    ]);
    const onCluster = await cpuShares(cluster, chatBody, connections, seconds, [
      { name: 'Tollway', pids: [started.proc.child.pid!] },
      ...others,
    ]);
    const us = (name: string) =>
      `${onSqlite.perRequestUs[name]!.toFixed(1)} / ${onCluster.perRequestUs[name]!.toFixed(1)}`;
    const shares = ['Tollway', ...others.map((g) => g.name)].map((name) => `${name} ${us(name)}`).join(', ');
    return [
      `| Throughput, Tollway on PostgreSQL + Redis ÷ on SQLite at ${connections} conns (median of ${RATIO_ROUNDS} alternating rounds of ${seconds} s; ${tp.rps[0].toFixed(0)} vs ${tp.rps[1].toFixed(0)} req/s) | ${tp.ratio.toFixed(2)} | ≥ 0.8 |`,
      `| Added p50 latency, Tollway on PostgreSQL + Redis, 1 connection (median over ${LATENCY_ROUNDS} alternating rounds; p50s ${lat.gatewayP50.toFixed(3)} vs ${lat.directP50.toFixed(3)} ms) | ${lat.added.toFixed(3)} ms | ≤ 0.35 ms |`,
      `| Where the time goes: CPU per request, µs, Tollway on SQLite / on PostgreSQL + Redis at ${connections} conns (one run of ${seconds} s each; ${onSqlite.rps.toFixed(0)} / ${onCluster.rps.toFixed(0)} req/s): ${shares} | whole machine ${us('machine')} | — |`,
    ];
  } finally {
    await started.proc.stop();
    await db.drop();
  }
}
