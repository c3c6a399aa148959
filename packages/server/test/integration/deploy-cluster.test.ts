import { computeQuota } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { auditBilling, expectedCounters, readCounters, type BillingAudit } from '../support/crash-audit.js';
import { ChatLoad, type CallOutcome } from '../support/crash-load.js';
import { provision, type Pricing } from '../support/crash-server.js';
import {
  runHealthCheck,
  startComposeCluster,
  type ComposeCluster,
  type ComposeNode,
} from '../support/deploy-cluster.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

/*
 * deploy/compose.yaml on loopback: its two Tollway nodes (the server bundle with the environment the compose file
 * gives them) on PostgreSQL and Redis, behind Debian's nginx running deploy/nginx.conf. Relay calls go through
 * nginx while one node is killed (SIGKILL) and restarted as the restart policy would: the only server errors are
 * calls that were in flight on the killed node, no call reaches the upstream twice, and every bill is kept.
 */

const WORKERS = 12;
const DELIVERED_BEFORE_KILL = 40;
/** Then the kill comes after a random delay in this range, ms. */
const KILL_DELAY_MS = [0, 300] as const;
/** Calls the surviving node must deliver after the kill. */
const DELIVERED_AFTER_KILL = 60;
const LOAD_TIMEOUT_MS = 15_000;
const MODEL_WAIT_MS = 10_000;
const POLL_MS = 50;
const USER_QUOTA = 20_000_000;
const TOKEN_QUOTA = 10_000_000;
const PRICING: Pricing = { model: 'deploy-model', modelRatio: 2, completionRatio: 4 };
const CHANNEL_KEY = 'deploy-upstream';
/** The root account provision() sets up. */
const ROOT = { username: 'root', password: 'root-pass-123' };
/** Upstream latency so calls overlap the kill. */
const UPSTREAM_DELAY_MS = 15;
const CHUNK_DELAY_MS = 10;
/** The prompt estimate counts at most one token per body byte plus a few per message (one message here). */
const PER_MESSAGE_TOKENS = 3;
const SERVER_ERROR = 500;
/** About 10 s alone; a loaded machine (the whole suite at once) stretches it. */
const TEST_TIMEOUT_MS = 90_000;

const NO_FAULTS: BillingAudit = {
  deliveredWithoutRequestId: 0,
  rowsShortOfDelivered: 0,
  deliveredNotBilled: 0,
  billedTwice: 0,
  rowsWithoutRequestId: 0,
  rowsOverReservation: 0,
  rowsOfUnseenCalls: 0,
  errorAnswersBilled: 0,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Above any reservation a node can make for this call (prompt estimate ≤ body bytes). */
const reservationBound = (o: CallOutcome): number =>
  computeQuota(
    {
      mode: 'ratio',
      modelRatio: PRICING.modelRatio,
      completionRatio: PRICING.completionRatio,
      cacheRatio: 1,
      cacheCreationRatio: 1,
      groupRatio: 1,
    },
    { promptTokens: o.bytes + PER_MESSAGE_TOKENS, completionTokens: o.maxTokens },
    1,
  );

/** Until the node lists the model for the token (the channel made through the other node reached it). */
async function untilServes(node: ComposeNode, key: string): Promise<void> {
  const deadline = Date.now() + MODEL_WAIT_MS;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${node.port}/v1/models`, {
      headers: { authorization: `Bearer sk-${key}` },
    });
    const ids = res.ok ? ((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id) : [];
    if (ids.includes(PRICING.model)) return;
    if (Date.now() > deadline) throw new Error(`${node.name} never listed ${PRICING.model}`);
    await sleep(POLL_MS);
  }
}

/** Signs in on `from`, then reads the signed-in user on `to` with that session cookie; the username. */
async function sessionCarriesOver(from: ComposeNode, to: ComposeNode): Promise<string | undefined> {
  const login = await fetch(`http://127.0.0.1:${from.port}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ROOT.username, password: ROOT.password }),
  });
  const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
  const self = await fetch(`http://127.0.0.1:${to.port}/api/user/self`, { headers: { cookie, 'new-api-user': '1' } });
  return ((await self.json()) as { data?: { username: string } }).data?.username;
}

/** An access log line's status and the upstream addresses nginx tried for it. */
function parseAccessLine(line: string): { status: number; upstreams: string[]; path: string } {
  const m = /"\S+ (\S+) [^"]*" (\d{3}) .* upstream=(.*?) upstream_status=/.exec(line);
  if (!m) throw new Error(`unexpected access log line: ${line}`);
  return { path: m[1]!, status: Number(m[2]), upstreams: m[3] === '-' ? [] : m[3]!.split(', ') };
}

describe('deploy/compose.yaml on loopback (PostgreSQL, Redis, nginx)', () => {
  let cluster: ComposeCluster | undefined;
  let mock: MockUpstream | undefined;
  let load: ChatLoad | undefined;
  afterAll(async () => {
    load?.halt();
    await load?.finished();
    await cluster?.close();
    await mock?.close();
  });

  it(
    'keeps serving through nginx when a node is killed mid-run, with no server error beyond its in-flight calls and no lost bill',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      mock = await startMockUpstream();
      mock.behaviors.set(CHANNEL_KEY, { delayMs: UPSTREAM_DELAY_MS, chunkDelayMs: CHUNK_DELAY_MS });
      cluster = await startComposeCluster();
      const { nodes, nginx, database } = cluster;
      const [victim, survivor] = nodes as [ComposeNode, ComposeNode];
      expect(nodes.map((n) => runHealthCheck(n.port))).toEqual([0, 0]);

      // Sign-in, options, channel and tokens through nginx: round robin sends them to both nodes, one session.
      const setup = await provision(nginx.url, database.db, {
        upstream: mock.url,
        channelKey: CHANNEL_KEY,
        pricing: PRICING,
        userQuota: USER_QUOTA,
        tokenQuota: TOKEN_QUOTA,
        tokensByApi: true,
      });
      // The token made on one node is found on both (one CRYPTO_SECRET seals keys alike), a session made on one node
      // holds on the other (one SESSION_SECRET).
      await Promise.all(nodes.map((n) => untilServes(n, setup.keys.limited)));
      expect(await sessionCarriesOver(victim, survivor)).toBe('root');
      const initial = await readCounters(database.db, setup.accounts);

      load = new ChatLoad({ base: nginx.url, model: PRICING.model, keys: setup.keys, workers: WORKERS });
      await load.untilDelivered(DELIVERED_BEFORE_KILL, LOAD_TIMEOUT_MS);
      const delay = Math.round(KILL_DELAY_MS[0] + Math.random() * (KILL_DELAY_MS[1] - KILL_DELAY_MS[0]));
      await sleep(delay);
      const killAt = performance.now();
      victim.server.child.kill('SIGKILL');
      await victim.server.exited;
      const goneAt = performance.now();
      expect(runHealthCheck(victim.port)).not.toBe(0);
      await load.untilDelivered(load.delivered() + DELIVERED_AFTER_KILL, LOAD_TIMEOUT_MS);
      const outcomes = await load.finished();
      const context = `killed ${victim.name} ${delay} ms after ${DELIVERED_BEFORE_KILL} deliveries, gone ${Math.round(goneAt - killAt)} ms after the signal; ${JSON.stringify(load.statuses())}`;

      // Server errors: only calls sent before the node was gone (a dying process's sockets take in requests until
      // they close), and nginx names the killed node alone for each.
      const serverErrors = outcomes.filter((o) => (o.status ?? 0) >= SERVER_ERROR);
      expect(
        serverErrors.filter((o) => o.startedAt >= goneAt),
        context,
      ).toEqual([]);
      expect(serverErrors.length, context).toBeLessThanOrEqual(WORKERS);
      const relayLines = nginx
        .accessLog()
        .map(parseAccessLine)
        .filter((l) => l.path === '/v1/chat/completions');
      const victimAddress = `127.0.0.1:${victim.port}`;
      const survivorAddress = `127.0.0.1:${survivor.port}`;
      for (const l of relayLines.filter((x) => x.status >= SERVER_ERROR))
        expect(l.upstreams, context).toEqual([victimAddress]);
      expect(relayLines.filter((l) => l.status >= SERVER_ERROR).length, context).toBe(serverErrors.length);
      // Both nodes served calls, and every call after the kill was answered in full (by the survivor).
      const served = new Set(relayLines.filter((l) => l.status === 200).flatMap((l) => l.upstreams));
      expect(served, context).toEqual(new Set([victimAddress, survivorAddress]));
      const afterKill = outcomes.filter((o) => o.startedAt >= goneAt);
      expect(afterKill.length, context).toBeGreaterThanOrEqual(DELIVERED_AFTER_KILL);
      expect(
        afterKill.filter((o) => o.kind !== 'delivered'),
        context,
      ).toEqual([]);

      // nginx never sent a call on once it had reached a node: no call reached the upstream twice.
      const perCall = new Map<string, number>();
      for (const r of mock.requests) {
        const content = (r.body.messages as { content: string }[] | undefined)?.[0]?.content ?? '';
        perCall.set(content, (perCall.get(content) ?? 0) + 1);
      }
      expect(
        [...perCall.entries()].filter(([, n]) => n > 1),
        context,
      ).toEqual([]);

      // The killed node starts again on its data (the restart policy), its journal bills the calls it cut; then both
      // nodes stop cleanly.
      await cluster.restart(victim);
      expect(runHealthCheck(victim.port)).toBe(0);
      expect(await cluster.stopNodes(), context).toEqual([0, 0]);

      // A call nginx answered 502 for was cut by the crash on its way: billed at most its reservation, like a cut.
      const asBilled = outcomes.map((o) =>
        (o.status ?? 0) >= SERVER_ERROR && !o.id ? { ...o, kind: 'cut' as const } : o,
      );
      const { audit, billed } = await auditBilling(database.db, setup.accounts, asBilled, reservationBound);
      expect(audit, `${context}; billed rows ${billed.rows} (${billed.total} quota)`).toEqual(NO_FAULTS);
      expect(await readCounters(database.db, setup.accounts), context).toEqual(expectedCounters(initial, billed));
    },
  );
});
