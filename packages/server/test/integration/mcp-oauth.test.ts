import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@tollway/shared';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { startMockOAuthMcp, type MockOAuthMcp } from '../support/mock-oauth-mcp.js';

const SECRET = 'oauth-client-secret-0042';
const SHORT_SECRET = 'short-lived-secret-0042';
const WRONG_SECRET = 'not-the-secret-0042';
const SECRETS = [SECRET, SHORT_SECRET, WRONG_SECRET];

interface ServerView {
  id: number;
  oauth_token_url: string;
  oauth_client_id: string;
  oauth_client_secret: string;
  oauth_scope: string;
  oauth_audience: string;
  oauth_client_auth: string;
}

/** Everything the node logged (warnings and errors), as text, errors with their messages, details and causes. */
function logRecorder(log: { warn: unknown; error: unknown }) {
  const lines: string[] = [];
  const errorText = (_k: string, v: unknown) =>
    v instanceof Error ? { ...v, message: v.message, cause: (v.cause as Error | undefined)?.message } : v;
  for (const level of ['warn', 'error'] as const)
    vi.spyOn(log as Record<typeof level, (...a: unknown[]) => void>, level).mockImplementation((...args) => {
      lines.push(JSON.stringify(args, errorText));
    });
  return lines;
}

/**
 * OAuth 2.0 client credentials to upstream MCP servers on every database: Tollway fetches a token at the registered
 * token endpoint (our own, node:http) through the outbound guard, caches it, sends it as a bearer to a real SDK
 * McpServer that checks it, refreshes it after expiry and on a 401; the secret is never answered nor logged.
 */
describe.each(dialects)('MCP upstream OAuth (%s)', (dialect) => {
  let logs: string[] = [];
  const ids: Record<string, number> = {};
  const g = useGateway<MockOAuthMcp>(
    dialect,
    { mock: startMockOAuthMcp, user: 'oauth-caller', quota: 1_000, env: { CRYPTO_SECRET: 'mcp-oauth-0042' } },
    async (gw) => {
      gw.mock.clients.set('tollway', { secret: SECRET, expiresIn: 3600 });
      gw.mock.clients.set('short', { secret: SHORT_SECRET, expiresIn: 1 });
      logs = logRecorder(gw.t.runtime.ctx.log);
      // A token URL on a port the outbound guard does not allow is refused when saved.
      const blocked = await gw.root.call('POST', '/api/mcp/servers/', {
        name: 'blocked',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        oauth_token_url: gw.mock.tokenUrl,
        oauth_client_id: 'tollway',
        oauth_client_secret: SECRET,
      });
      expect([ErrorCode.OutboundAddressBlocked, ErrorCode.OutboundPortRefused]).toContain(
        (blocked.body as { code?: string }).code,
      );
      for (const [key, value] of [
        ['fetch_setting.allow_private_ip', 'true'],
        ['fetch_setting.allowed_ports', JSON.stringify([String(gw.mock.mcpPort), String(gw.mock.tokenPort)])],
      ])
        expect((await gw.root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
      const servers = [
        {
          name: 'secured',
          oauth_client_id: 'tollway',
          oauth_client_secret: SECRET,
          oauth_scope: 'tools:read tools:call',
          oauth_audience: 'https://mcp.example',
        },
        {
          name: 'short',
          oauth_client_id: 'short',
          oauth_client_secret: SHORT_SECRET,
          oauth_client_auth: 'client_secret_post',
        },
        { name: 'wrong', oauth_client_id: 'tollway', oauth_client_secret: WRONG_SECRET },
      ];
      for (const s of servers) {
        const res = await gw.root.call('POST', '/api/mcp/servers/', {
          transport: 'http',
          url: gw.mock.mcpUrl,
          oauth_token_url: gw.mock.tokenUrl,
          ...s,
        });
        expect(res.body.success, res.body.message).toBe(true);
        ids[s.name] = (res.body.data as { id: number }).id;
      }
    },
  );
  const open: McpClient[] = [];
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => undefined);
  });
  const connect = async (path: string) => {
    const client = new McpClient({ name: 'oauth-test', version: '1.0.0' });
    const headers = { authorization: `Bearer ${g.key}` };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${g.base}${path}`), { requestInit: { headers } }));
    open.push(client);
    return client;
  };
  const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;
  const requestsOf = (clientId: string) => g.mock.tokenRequests.filter((r) => r.clientId === clientId);

  it('masks the secret in every answer and audit row, keeps it sealed at rest and when an update leaves it out', async () => {
    const view = (await g.root.call<ServerView>('GET', `/api/mcp/servers/${ids.secured}`)).body.data!;
    expect(view).toMatchObject({
      oauth_token_url: g.mock.tokenUrl,
      oauth_client_id: 'tollway',
      oauth_client_secret: '***',
      oauth_scope: 'tools:read tools:call',
      oauth_client_auth: 'client_secret_basic',
    });
    const list = await g.root.call('GET', '/api/mcp/servers/');
    const stored = await g.t.database.db.kysely.selectFrom('mcp_servers').selectAll().execute();
    const audit = await g.t.database.db.kysely.selectFrom('audit_logs').select('detail').execute();
    for (const text of [JSON.stringify(list.body), JSON.stringify(stored), JSON.stringify(audit)])
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    // The audit rows say a secret was set, not which.
    expect(audit.filter((a) => a.detail.includes('oauth_client_secret')).length).toBeGreaterThanOrEqual(3);
    // Left out, or sent back masked: kept (the calls below still get tokens).
    for (const body of [{ oauth_scope: 'tools:read tools:call' }, { oauth_client_secret: '***' }])
      expect((await g.root.call('PUT', `/api/mcp/servers/${ids.secured}`, body)).body.success).toBe(true);
    // A token URL on a stdio server, or without a client id, is refused.
    const noClient = await g.root.call('PUT', `/api/mcp/servers/${ids.secured}`, { oauth_client_id: '' });
    expect((noClient.body as { code?: string }).code).toBe(ErrorCode.InvalidInput);
  });

  it('fetches one token for many calls and sends it as a bearer; the token request is RFC 6749 §4.4', async () => {
    const client = await connect('/mcp/secured');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
    for (let i = 0; i < 5; i++) expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('authorized');
    // A second session of the same server uses the cached token.
    const other = await connect('/mcp/secured');
    expect(textOf(await other.callTool({ name: 'whoami' }))).toBe('authorized');
    const requests = requestsOf('tollway');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toEqual({
      clientId: 'tollway',
      method: 'basic',
      form: { grant_type: 'client_credentials', scope: 'tools:read tools:call', audience: 'https://mcp.example' },
    });
    const [token] = g.mock.issued('tollway');
    expect(new Set(g.mock.bearers.filter((b) => b.startsWith('tok-tollway')))).toEqual(new Set([token]));
  });

  it('shares one token request among sessions connecting at once', async () => {
    const res = await g.root.call('POST', '/api/mcp/servers/', {
      name: 'burst',
      transport: 'http',
      url: g.mock.mcpUrl,
      oauth_token_url: g.mock.tokenUrl,
      oauth_client_id: 'burst',
      oauth_client_secret: SECRET,
    });
    expect(res.body.success, res.body.message).toBe(true);
    g.mock.clients.set('burst', { secret: SECRET, expiresIn: 3600 });
    const clients = await Promise.all([1, 2, 3, 4].map(() => connect('/mcp/burst')));
    const answers = await Promise.all(clients.map((c) => c.callTool({ name: 'whoami' })));
    expect(answers.map(textOf)).toEqual(['authorized', 'authorized', 'authorized', 'authorized']);
    expect(requestsOf('burst')).toHaveLength(1);
    expect((await g.root.call('DELETE', `/api/mcp/servers/${(res.body.data as { id: number }).id}`)).body.success).toBe(
      true,
    );
  });

  it('fetches a new token once when the server answers 401, and the call goes through', async () => {
    const client = await connect('/mcp/secured');
    const [first] = g.mock.issued('tollway');
    g.mock.revoke(first!);
    const refused = g.mock.refused;
    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('authorized');
    expect(g.mock.refused).toBe(refused + 1);
    expect(requestsOf('tollway')).toHaveLength(2);
    const second = g.mock.issued('tollway')[1]!;
    expect(g.mock.bearers.at(-1)).toBe(second);
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'whoami' });
    expect(requestsOf('tollway')).toHaveLength(2);
  });

  it('fetches a new token when the cached one expires (client_secret_post)', async () => {
    const client = await connect('/mcp/short');
    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('authorized');
    expect(requestsOf('short').map((r) => [r.method, r.form.client_secret === SHORT_SECRET])).toEqual([['post', true]]);
    // The token lives 1 s (used for 0.9 s): once it is past, the next request fetches another.
    const issuedAt = Date.now();
    await new Promise((r) => setTimeout(r, 1_100));
    expect(Date.now() - issuedAt).toBeGreaterThanOrEqual(1_000);
    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('authorized');
    expect(requestsOf('short').length).toBeGreaterThanOrEqual(2);
    const issued = g.mock.issued('short');
    expect(g.mock.bearers.at(-1)).toBe(issued.at(-1));
    expect(issued.length).toBe(requestsOf('short').length);
  });

  it('a token endpoint failure is the server failing: "cannot be reached", no secret answered or logged', async () => {
    const client = await connect('/mcp');
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(['secured__whoami', 'short__whoami']);
    const err = await client.callTool({ name: 'wrong__whoami' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).message).toContain('MCP server wrong cannot be reached');
    expect((err as McpError).message).not.toContain('127.0.0.1');
    const health = (
      await g.root.call<{ last_error: string; consecutive_failures: number }>(
        'GET',
        `/api/mcp/servers/${ids.wrong}/health`,
      )
    ).body.data!;
    expect(health.last_error).toContain('answered HTTP 401 (invalid_client)');
    expect(health.consecutive_failures).toBeGreaterThanOrEqual(2);
    // The refused request named the client; its secret went only to the token endpoint.
    expect(requestsOf('tollway').some((r) => r.method === 'basic')).toBe(true);
    const logged = logs.join('\n');
    expect(logged).toContain('invalid_client');
    for (const secret of SECRETS) expect(logged).not.toContain(secret);
    for (const token of g.mock.issued('tollway')) expect(logged).not.toContain(token);
  });

  it('guards the token URL on every fetch: a port no longer allowed fails the connection', async () => {
    const res = await g.root.call('PUT', '/api/option/', {
      key: 'fetch_setting.allowed_ports',
      value: JSON.stringify([String(g.mock.mcpPort)]),
    });
    expect(res.body.success).toBe(true);
    // The server refuses the cached token: a new one is needed, and the guard refuses the token endpoint's port.
    for (const token of g.mock.issued('tollway')) g.mock.revoke(token);
    const before = g.mock.tokenRequests.length;
    const client = await connect('/mcp');
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('secured__whoami');
    const err = await client.callTool({ name: 'secured__whoami' }).catch((e: unknown) => e);
    expect((err as McpError).message).toContain('MCP server secured cannot be reached');
    expect(g.mock.tokenRequests.length).toBe(before);
    const health = (await g.root.call<{ last_error: string }>('GET', `/api/mcp/servers/${ids.secured}/health`)).body
      .data!;
    expect(health.last_error).toContain('OAuth token request');
    expect(health.last_error).not.toContain('127.0.0.1');
  });
});
