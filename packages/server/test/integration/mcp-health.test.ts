import http from 'node:http';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode as RpcCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerHealth } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { drainWriter, userQuota } from '../support/gateway.js';
import { listenLocally } from '../support/local-server.js';
import { startMockMcp, UPSTREAM_FAILS, type MockMcp } from '../support/mock-mcp.js';
import { parseSamples, sampleValue } from '../support/prometheus-text.js';

const METRICS_TOKEN = 'mcp-health-metrics-0042';
/** Failures in a row that open a server's breaker here (the option ChannelBreakerMinFailures). */
const MIN_FAILURES = 2;
const FLAKY_PRICE = 3;
/** Long enough for a breaker's 1 s (then 2 s) cool-down to end under load. */
const COOLDOWN_WAIT = { timeout: 10_000, interval: 100 };

/** A port nothing listens on (a server that went away). */
async function deadPort(): Promise<number> {
  const local = await listenLocally(http.createServer());
  await local.close();
  return local.port;
}

/**
 * Each MCP server's breaker on every database: upstream failures in a row (not tool errors, not cancellations)
 * open it; while open the server is out of tools/list and its calls are refused at once, nothing held or billed;
 * after the cool-down one probe goes through. Health in the management API and in Prometheus metrics.
 */
describe.each(dialects)('MCP server health (%s)', (dialect) => {
  const ids: Record<string, number> = {};
  let dead = 0;
  const g = useGateway<MockMcp>(
    dialect,
    {
      mock: startMockMcp,
      user: 'health-caller',
      quota: 1_000,
      env: { CRYPTO_SECRET: 'mcp-health-0042', METRICS_TOKEN },
    },
    async (gw) => {
      dead = await deadPort();
      for (const [key, value] of Object.entries({
        'fetch_setting.allow_private_ip': 'true',
        'fetch_setting.allowed_ports': JSON.stringify([String(gw.mock.port), String(dead)]),
        ChannelBreakerMinFailures: String(MIN_FAILURES),
        ChannelBreakerCooldownSeconds: '1',
        ChannelBreakerMaxCooldownSeconds: '2',
      }))
        expect((await gw.root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
      const servers = [
        { name: 'good', url: gw.mock.url },
        { name: 'flaky', url: gw.mock.url, price: FLAKY_PRICE },
      ];
      for (const s of servers) {
        const res = await gw.root.call('POST', '/api/mcp/servers/', { transport: 'http', ...s });
        expect(res.body.success, res.body.message).toBe(true);
        ids[s.name] = (res.body.data as { id: number }).id;
      }
    },
  );
  const open: McpClient[] = [];
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => undefined);
  });
  const connect = async () => {
    const client = new McpClient({ name: 'health-test', version: '1.0.0' });
    const headers = { authorization: `Bearer ${g.key}` };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${g.base}/mcp`), { requestInit: { headers } }));
    open.push(client);
    return client;
  };
  const health = async (name: string) => {
    const res = await g.root.call<McpServerHealth>('GET', `/api/mcp/servers/${ids[name]}/health`);
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data!;
  };
  const scrape = async () => {
    const res = await g.t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    return parseSamples(res.body);
  };
  const calls = async (server: string, status: string) =>
    sampleValue(await scrape(), 'tollway_mcp_tool_calls_total', { server, status });
  /** Usage log rows of flaky's echo (written ones: the writer drained first). */
  const echoRows = async () => {
    await drainWriter(g.t);
    const rows = await g.t.database.db.kysely
      .selectFrom('logs')
      .select('id')
      .where('model_name', '=', 'mcp:flaky/echo')
      .execute();
    return rows.length;
  };
  const toolNames = async (client: McpClient) => (await client.listTools()).tools.map((t) => t.name);
  const failCall = (client: McpClient, name: string) => client.callTool({ name }).catch((e: unknown) => e);

  it('tool errors (isError) and cancellations leave a server healthy', async () => {
    const client = await connect();
    for (let i = 0; i < MIN_FAILURES + 1; i++)
      expect((await client.callTool({ name: 'good__fails' })).isError).toBe(true);
    for (let i = 0; i < MIN_FAILURES + 1; i++) {
      const abort = new AbortController();
      const started = g.mock.waiting();
      const call = client.callTool({ name: 'good__wait_forever' }, undefined, { signal: abort.signal });
      await started;
      abort.abort('stopped');
      await expect(call).rejects.toThrow();
    }
    expect(await health('good')).toMatchObject({ state: 'closed', consecutive_failures: 0, last_error: '' });
  });

  it('upstream errors open the breaker: out of tools/list, calls refused at once and not billed, metrics', async () => {
    const client = await connect();
    const errorsBefore = await calls('flaky', 'error');
    const refusedBefore = await calls('flaky', 'unavailable');
    const quota = await userQuota(g.t, g.user.userId!);
    for (let i = 0; i < MIN_FAILURES; i++)
      expect(await failCall(client, `flaky__${UPSTREAM_FAILS}`)).toBeInstanceOf(McpError);
    const opened = await health('flaky');
    expect(opened).toMatchObject({
      state: 'open',
      consecutive_failures: MIN_FAILURES,
      opens: 1,
      failure_threshold: MIN_FAILURES,
    });
    expect(opened.open_until).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(opened.last_error).toContain('HTTP 500');
    expect((await toolNames(client)).filter((n) => n.startsWith('flaky__'))).toEqual([]);
    expect(await toolNames(client)).toContain('good__echo');

    const echoes = g.mock.calls.echo ?? 0;
    const rowsBefore = await echoRows();
    const refused = await failCall(client, 'flaky__echo');
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(RpcCode.InternalError);
    expect((refused as McpError).message).toContain('MCP server flaky is unavailable after repeated failures');
    expect(g.mock.calls.echo ?? 0).toBe(echoes);
    expect(await userQuota(g.t, g.user.userId!)).toBe(quota);
    const rowsAfter = await echoRows();
    expect(rowsAfter).toBe(rowsBefore);

    const samples = await scrape();
    expect(sampleValue(samples, 'tollway_mcp_server_health_state', { server: 'flaky' })).toBe(2);
    expect(sampleValue(samples, 'tollway_mcp_tool_calls_total', { server: 'flaky', status: 'error' })).toBe(
      errorsBefore + MIN_FAILURES,
    );
    expect(sampleValue(samples, 'tollway_mcp_tool_calls_total', { server: 'flaky', status: 'unavailable' })).toBe(
      refusedBefore + 1,
    );
    expect(
      sampleValue(samples, 'tollway_mcp_tool_call_duration_seconds_count', { server: 'flaky', status: 'error' }),
    ).toBeGreaterThanOrEqual(MIN_FAILURES);
    expect(sampleValue(samples, 'tollway_mcp_server_health_state', { server: 'good' })).toBe(0);
  });

  it('half-open lets one try through: a failed probe opens it for twice as long, an answered one closes it', async () => {
    const client = await connect();
    await expect.poll(async () => (await health('flaky')).state, COOLDOWN_WAIT).toBe('half_open');
    expect(await failCall(client, `flaky__${UPSTREAM_FAILS}`)).toBeInstanceOf(McpError);
    const reopened = await health('flaky');
    expect(reopened).toMatchObject({ state: 'open', opens: 2 });
    await expect.poll(async () => (await health('flaky')).state, COOLDOWN_WAIT).toBe('half_open');

    // The probe is out (a call the upstream holds): another call is refused at once.
    const abort = new AbortController();
    const started = g.mock.waiting();
    const probe = client.callTool({ name: 'flaky__wait_forever' }, undefined, { signal: abort.signal });
    await started;
    const second = await failCall(client, 'flaky__echo');
    expect((second as McpError).message).toContain('is unavailable');
    // Cancelled: no verdict, the next call is the probe; answered, it closes the breaker.
    abort.abort('stopped');
    await expect(probe).rejects.toThrow();
    expect((await client.callTool({ name: 'flaky__echo', arguments: { text: 'back' } })).content).toEqual([
      { type: 'text', text: 'echo: back' },
    ]);
    expect(await health('flaky')).toMatchObject({ state: 'closed', consecutive_failures: 0, opens: 0 });
    expect(await toolNames(client)).toContain('flaky__echo');
    expect(sampleValue(await scrape(), 'tollway_mcp_server_health_state', { server: 'flaky' })).toBe(0);
  });

  it('connection failures count; the health answer names no address; editing a server closes its breaker', async () => {
    const res = await g.root.call('POST', '/api/mcp/servers/', {
      name: 'dead',
      transport: 'http',
      url: `http://127.0.0.1:${dead}/mcp`,
    });
    expect(res.body.success, res.body.message).toBe(true);
    ids.dead = (res.body.data as { id: number }).id;
    const client = await connect();
    for (let i = 0; i < MIN_FAILURES; i++) expect(await toolNames(client)).not.toContain('dead__echo');
    const down = await health('dead');
    expect(down).toMatchObject({ state: 'open', consecutive_failures: MIN_FAILURES });
    expect(down.last_error).not.toBe('');
    expect(down.last_error).not.toContain('127.0.0.1');
    expect(down.last_error).not.toContain(String(dead));
    const err = await failCall(client, 'dead__echo');
    expect((err as McpError).message).toContain('MCP server dead is unavailable');

    const all = await g.root.call<McpServerHealth[]>('GET', '/api/mcp/servers/health');
    expect(all.body.data!.map((h) => [h.name, h.state])).toEqual([
      ['good', 'closed'],
      ['flaky', 'closed'],
      ['dead', 'open'],
    ]);
    expect((await g.root.call('PUT', `/api/mcp/servers/${ids.dead}`, { enabled: false })).body.success).toBe(true);
    expect(await health('dead')).toMatchObject({ state: 'closed', consecutive_failures: 0 });
    // Administrators only.
    expect((await g.user.call('GET', `/api/mcp/servers/${ids.dead}/health`)).body).toMatchObject({ success: false });
  });
});
