import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, type McpServerTool, type McpUsageAnswer } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { logDatabasePairs } from '../support/databases.js';
import { useGateway, useLogDatabaseEnv } from '../support/fixture.js';
import { drainWriter } from '../support/gateway.js';
import { logRow } from '../support/log-row.js';
import { startMockMcp, type MockMcp } from '../support/mock-mcp.js';
import { listenLocally } from '../support/local-server.js';
import http from 'node:http';

const DAY = 86_400;
const PRICE = 5;
const dayOf = (at: number, offsetSeconds = 0) => at + offsetSeconds - ((at + offsetSeconds) % DAY) - offsetSeconds;

/**
 * The console's MCP endpoints (GET /api/mcp/servers/:id/tools and GET /api/mcp/usage) with the logs in their own
 * database (LOG_SQL_DSN): a real SDK server's tools with the registry's rules applied, tool calls made through /mcp
 * with the SDK client counted per tool, status and day; administrators only.
 */
describe.each(logDatabasePairs)('MCP console endpoints (%s main, %s logs)', (mainDialect, logDialect) => {
  const env = useLogDatabaseEnv(logDialect);
  const ids: Record<string, number> = {};
  let deadUrl = '';
  const g = useGateway<MockMcp>(
    mainDialect,
    { mock: startMockMcp, user: 'mcp-console-user', quota: 10_000, env: Object.assign(env, { CRYPTO_SECRET: 'c-42' }) },
    async (gw) => {
      // A port that answers nothing MCP: a server that closes every connection at once.
      const dead = await listenLocally(http.createServer((req) => req.socket.destroy()));
      deadUrl = `${dead.url}/mcp`;
      afterAll(() => dead.close());
      for (const [key, value] of [
        ['fetch_setting.allow_private_ip', 'true'],
        ['fetch_setting.allowed_ports', JSON.stringify([String(gw.mock.port), String(dead.port)])],
      ])
        expect((await gw.root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
      const servers = [
        { name: 'alpha', deny_tools: 'delete_*', price: PRICE },
        { name: 'reader', read_only: true },
        { name: 'gone', url: deadUrl },
      ];
      for (const s of servers) {
        const res = await gw.root.call<{ id: number }>('POST', '/api/mcp/servers/', {
          transport: 'http',
          url: gw.mock.url,
          ...s,
        });
        expect(res.body.success, res.body.message).toBe(true);
        ids[s.name] = res.body.data!.id;
      }
    },
  );
  const usage = async (query: string) => {
    const res = await g.root.call<McpUsageAnswer>('GET', `/api/mcp/usage?${query}`);
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data!;
  };

  it("lists a server's tools with the registry's rules applied (deny list, read-only)", async () => {
    const res = await g.root.call<McpServerTool[]>('GET', `/api/mcp/servers/${ids.alpha}/tools`);
    expect(res.body.success, res.body.message).toBe(true);
    const byName = new Map(res.body.data!.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual([
      'delete_everything',
      'echo',
      'fails',
      'slow_count',
      'upstream_fails',
      'wait_forever',
    ]);
    expect(byName.get('echo')).toMatchObject({
      description: 'Echoes its text',
      read_only: true,
      permitted: true,
      annotations: { readOnlyHint: true },
    });
    expect(byName.get('delete_everything')).toMatchObject({ read_only: false, permitted: false });
    expect(byName.get('fails')).toMatchObject({ read_only: false, permitted: true });
    // A read-only server lets through only the tools annotated readOnlyHint.
    const reader = await g.root.call<McpServerTool[]>('GET', `/api/mcp/servers/${ids.reader}/tools`);
    expect(reader.body.data!.filter((t) => t.permitted).map((t) => t.name)).toEqual(['echo']);
  });

  it('answers a server that cannot be reached with a coded refusal naming no address, and an unknown one 404', async () => {
    const res = await g.root.call('GET', `/api/mcp/servers/${ids.gone}/tools`);
    expect(res.body).toMatchObject({ success: false, code: ErrorCode.McpServerUnreachable, params: { name: 'gone' } });
    expect(JSON.stringify(res.body)).not.toContain('127.0.0.1');
    expect(JSON.stringify(res.body)).not.toContain('    at ');
    const missing = await g.root.call('GET', '/api/mcp/servers/999999/tools');
    expect(missing.body).toMatchObject({ success: false, code: ErrorCode.McpServerNotFound });
  });

  it('counts tool calls per tool, status and day from the log database', async () => {
    const client = new McpClient({ name: 'console-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${g.base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${g.key}` } },
    });
    await client.connect(transport);
    try {
      for (const text of ['a', 'b']) await client.callTool({ name: 'alpha__echo', arguments: { text } });
      await client.callTool({ name: 'alpha__fails', arguments: {} });
      await client.callTool({ name: 'reader__echo', arguments: { text: 'r' } });
      await expect(client.callTool({ name: 'alpha__upstream_fails', arguments: {} })).rejects.toThrow();
    } finally {
      await client.close();
    }
    await drainWriter(g.t);
    const now = Math.floor(Date.now() / 1000);
    // Two older calls of one day (one at 23:30 UTC), a row whose arguments mimic another status, and a model call.
    const earlier = dayOf(now) - 3 * DAY;
    const late = earlier + 23 * 3600 + 1800;
    const other = (status: string, extra = {}) =>
      JSON.stringify({ mcp_server: 'alpha', mcp_tool: 'echo', mcp_status: status, duration_ms: 40, ...extra });
    await g.t.runtime.ctx.logDb.kysely
      .insertInto('logs')
      .values([
        logRow({ created_at: earlier + 60, model_name: 'mcp:alpha/echo', quota: PRICE, other: other('ok') }),
        logRow({
          created_at: late,
          model_name: 'mcp:alpha/echo',
          other: other('cancelled', { mcp_arguments: { mcp_status: 'ok' } }),
        }),
        logRow({ created_at: late, model_name: 'gpt-4o-mini', quota: 99 }),
      ])
      .execute();

    const all = await usage(`start_timestamp=${earlier}&end_timestamp=${now + 60}`);
    expect(all.statuses_complete).toBe(true);
    const tool = (server: string, name: string) => all.tools.find((t) => t.server === server && t.tool === name);
    expect(tool('alpha', 'echo')).toMatchObject({
      calls: 4,
      quota: 3 * PRICE,
      statuses: { ok: 3, tool_error: 0, error: 0, cancelled: 1 },
    });
    expect(tool('alpha', 'fails')).toMatchObject({ calls: 1, quota: PRICE, statuses: { tool_error: 1 } });
    expect(tool('alpha', 'upstream_fails')).toMatchObject({ calls: 1, quota: 0, statuses: { error: 1 } });
    expect(tool('reader', 'echo')).toMatchObject({ calls: 1, quota: 0, statuses: { ok: 1 } });
    expect(all.tools.map((t) => t.server)).not.toContain('gpt-4o-mini');
    expect(tool('alpha', 'echo')!.avg_duration_ms).toBeGreaterThanOrEqual(0);
    expect(all.days).toEqual(
      [
        { day: earlier, server: 'alpha', calls: 2 },
        { day: dayOf(now), server: 'alpha', calls: 4 },
        { day: dayOf(now), server: 'reader', calls: 1 },
      ].sort((a, b) => a.day - b.day || a.server.localeCompare(b.server)),
    );
    // A day starting an hour east of UTC: 23:30 UTC is the next day's first half hour.
    const east = await usage(`start_timestamp=${earlier}&end_timestamp=${earlier + DAY}&utc_offset=60`);
    expect(east.days).toEqual([
      { day: dayOf(earlier + 60, 3600), server: 'alpha', calls: 1 },
      { day: dayOf(late, 3600), server: 'alpha', calls: 1 },
    ]);
    // One server; a server name's _ is no wildcard.
    const reader = await usage(`start_timestamp=${earlier}&end_timestamp=${now + 60}&server=reader`);
    expect(reader.tools.map((t) => `${t.server}/${t.tool}`)).toEqual(['reader/echo']);
    expect((await usage(`start_timestamp=${earlier}&end_timestamp=${now + 60}&server=alph_`)).tools).toEqual([]);
  });

  it('refuses a range too long or backwards', async () => {
    for (const q of ['start_timestamp=100&end_timestamp=50', `start_timestamp=0&end_timestamp=${200 * DAY}`])
      expect((await g.root.call('GET', `/api/mcp/usage?${q}`)).body).toMatchObject({
        success: false,
        code: ErrorCode.SpendRangeInvalid,
      });
  });

  it('is for administrators only', async () => {
    for (const url of [`/api/mcp/servers/${ids.alpha}/tools`, '/api/mcp/usage?start_timestamp=0&end_timestamp=1']) {
      const res = await g.user.call('GET', url);
      expect(res.body, url).toMatchObject({ success: false });
      expect(res.status, url).toBe(403);
    }
  });
});
