import crypto from 'node:crypto';
import type { Client, TestApp } from './app.js';
import { tokenRow } from './token-row.js';

/** Starts listening on a real port (the official SDKs need HTTP, not inject). */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return `http://127.0.0.1:${addr.port}`;
}

/** Creates a channel through the admin API; returns its id. */
export async function addChannel(
  root: Client,
  c: {
    name: string;
    key: string;
    baseUrl: string;
    models: string;
    group?: string;
    priority?: number;
    weight?: number;
    type?: number;
    modelMapping?: Record<string, string>;
    /** Put before the (mapped) model name sent upstream. */
    modelPrefix?: string;
    other?: string;
    /** The channel's `setting` JSON (rpm_limit, cost_factor, ...). */
    setting?: Record<string, unknown>;
  },
): Promise<number> {
  const res = await root.call<number[] | { ids: number[] } | { id: number }>('POST', '/api/channel/', {
    mode: 'single',
    channel: {
      name: c.name,
      type: c.type ?? 1,
      key: c.key,
      base_url: c.baseUrl,
      models: c.models,
      group: c.group ?? 'default',
      priority: c.priority ?? 0,
      weight: c.weight ?? 0,
      ...(c.modelMapping ? { model_mapping: JSON.stringify(c.modelMapping) } : {}),
      ...(c.modelPrefix !== undefined ? { model_prefix: c.modelPrefix } : {}),
      ...(c.other !== undefined ? { other: c.other } : {}),
      ...(c.setting ? { setting: JSON.stringify(c.setting) } : {}),
    },
  });
  if (!res.body.success) throw new Error(`channel create failed: ${res.body.message}`);
  const d = res.body.data as unknown;
  if (Array.isArray(d)) return d[0] as number;
  if (d && typeof d === 'object' && 'ids' in d) return (d as { ids: number[] }).ids[0]!;
  if (d && typeof d === 'object' && 'id' in d) return (d as { id: number }).id;
  const list = await root.call<{ items: { id: number; name: string }[] }>(
    'GET',
    `/api/channel/search?keyword=${encodeURIComponent(c.name)}`,
  );
  return list.body.data!.items.find((x) => x.name === c.name)!.id;
}

/** Sets a user's quota through the admin API (the relay's ledger is told). */
export async function setQuota(root: Client, userId: number, quota: number): Promise<void> {
  const res = await root.call('PUT', '/api/user/', { id: userId, quota });
  if (!res.body.success) throw new Error(`set quota failed: ${res.body.message}`);
}

/** Creates an API token row for a user; returns the `sk-` key. */
export async function addToken(
  t: TestApp,
  userId: number,
  opts: {
    remainQuota?: number;
    unlimited?: boolean;
    name?: string;
    modelLimits?: string;
    allowIps?: string;
    expiredTime?: number;
  } = {},
): Promise<{ key: string; id: number }> {
  const key = crypto.randomBytes(24).toString('hex');
  // Stored as the tokens store stores it (sealed when the app runs with CRYPTO_SECRET).
  const values = tokenRow(t.runtime.ctx.secretBox.sealFixed(key), {
    user_id: userId,
    name: opts.name ?? 'test-token',
    created_time: Math.floor(Date.now() / 1000),
    expired_time: opts.expiredTime ?? -1,
    remain_quota: opts.remainQuota ?? 0,
    unlimited_quota: opts.unlimited === false ? 0 : opts.remainQuota === undefined ? 1 : 0,
    model_limits_enabled: opts.modelLimits ? 1 : 0,
    model_limits: opts.modelLimits ?? '',
    allow_ips: opts.allowIps ?? '',
  });
  const k = t.database.db.kysely;
  let id: number;
  if (t.database.dialect === 'mysql')
    id = Number((await k.insertInto('tokens').values(values).executeTakeFirstOrThrow()).insertId);
  else id = (await k.insertInto('tokens').values(values).returning('id').executeTakeFirstOrThrow()).id;
  return { key: `sk-${key}`, id };
}

/** How long drainWriter waits for answered calls to settle (a Redis ledger settles after a round trip). */
const SETTLE_WAIT_MS = 3_000;

/**
 * Waits until every call has settled (at most `stayOpen` calls open: a realtime session holds one while it lasts) and
 * the durable writer has committed everything queued. A call's settlement is queued after its answer is written
 * and, with a Redis ledger, after that ledger's round trip: a client can hold the whole answer before it. After
 * SETTLE_WAIT_MS the commit goes ahead with whatever is queued (the test's own checks then say what is missing).
 */
export async function drainWriter(t: TestApp, stayOpen = 0): Promise<void> {
  const writer = t.runtime.ctx.relay.writer;
  await new Promise((resolve) => setImmediate(resolve));
  const deadline = Date.now() + SETTLE_WAIT_MS;
  while (writer.openCalls() > stayOpen && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  await writer.flush();
}

/** A user's stored balance, after the durable writer has committed everything queued. */
export async function userQuota(t: TestApp, userId: number): Promise<number> {
  await drainWriter(t);
  const row = await t.database.db.kysely
    .selectFrom('users')
    .select('quota')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.quota);
}

/** The newest log row of a model, after the durable writer has committed everything queued. */
export async function lastLogOf(t: TestApp, model: string) {
  await drainWriter(t);
  return t.database.db.kysely
    .selectFrom('logs')
    .selectAll()
    .where('model_name', '=', model)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
}
