import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode as RpcCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { MCP_LIMITED } from '../../src/relay/mcp/call-limits.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addToken, setQuota, userQuota } from '../support/gateway.js';
import { startMockMcp, type MockMcp } from '../support/mock-mcp.js';
import { allowLocalMcp, mcpClients, mcpLogs, registerMcpServers } from '../support/mcp-gateway.js';
import { createOrg, ok, orgToken } from '../support/orgs.js';

const PRICE = 5;
const PER_MINUTE = 3;

/**
 * The MCP gateway's permissions and limits (issue 39) on every database, through the management API a user or an
 * administrator uses and the official SDK client: a tool must be one the server lists (an unknown one is refused,
 * never held nor billed), read-only servers, the token's, organization's and group's tool lists (applied to an
 * open session at its next request), per-token calls per minute and in flight, and arguments kept in the log row
 * only when the server asks, secrets masked.
 */
describe.each(dialects)('MCP permissions and limits (%s)', (dialect) => {
  const g = useGateway<MockMcp>(
    dialect,
    { mock: startMockMcp, user: 'mcp-perm', quota: 1_000, users: ['mcp-org-owner'], env: { CRYPTO_SECRET: 'mcp-p' } },
    async (gw) => {
      await allowLocalMcp(gw.root, gw.mock.port);
      await registerMcpServers(gw.root, gw.mock.url, [
        { name: 'tools', price: PRICE },
        { name: 'ro', read_only: true },
        { name: 'limited', allow_tools: 'echo,wait_forever', rate_limit: PER_MINUTE, max_concurrent: 1 },
        { name: 'logged', allow_tools: 'echo', log_arguments: true },
      ]);
    },
  );
  const clients = mcpClients(() => g.base);
  afterAll(() => clients.closeAll());
  const connect = async (key: string, path = '/mcp') => (await clients.connect(key, path)).client;
  const names = async (client: McpClient) => (await client.listTools()).tools.map((t) => t.name).sort();
  const refusal = async (call: Promise<unknown>) => {
    const err = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    return err as McpError;
  };
  const mcpRows = () => mcpLogs(g.t);
  const upstreamCalls = () => Object.values(g.mock.calls).reduce((n, c) => n + c, 0);

  it('refuses a tool the server does not list before anything is held: no charge, no row, no upstream call', async () => {
    const client = await connect(g.key);
    const userId = g.user.userId!;
    const quota = await userQuota(g.t, userId);
    const rows = (await mcpRows()).length;
    const reached = upstreamCalls();
    for (const name of ['tools__no_such_tool', 'tools__', 'tools__echo ']) {
      const err = await refusal(client.callTool({ name, arguments: {} }));
      expect(err.code, name).toBe(RpcCode.InvalidParams);
      expect(err.message, name).toContain('is not available to this token');
    }
    expect(await userQuota(g.t, userId)).toBe(quota);
    expect((await mcpRows()).length).toBe(rows);
    expect(upstreamCalls()).toBe(reached);
    // A listed tool on the same server is served and charged its price.
    await client.callTool({ name: 'tools__echo', arguments: { text: 'listed' } });
    expect(await userQuota(g.t, userId)).toBe(quota - PRICE);
  });

  it('a read-only server offers and runs only the tools annotated readOnlyHint', async () => {
    const client = await connect(g.key, '/mcp/ro');
    expect(await names(client)).toEqual(['echo']);
    const before = g.mock.calls.delete_everything ?? 0;
    const err = await refusal(client.callTool({ name: 'delete_everything', arguments: {} }));
    expect(err.code).toBe(RpcCode.InvalidParams);
    expect(g.mock.calls.delete_everything ?? 0).toBe(before);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'r' } })).isError).toBeFalsy();
  });

  it("the token's lists, set by its user, apply to an open session at its next request", async () => {
    const client = await connect(g.key);
    expect(await names(client)).toContain('tools__delete_everything');
    const put = (body: object) => g.user.call('PUT', '/api/token/', { id: g.tokenId, ...body });
    expect((await put({ mcp_deny_tools: 'tools__delete_*, *__fails' })).body.success).toBe(true);
    const seen = await names(client);
    expect(seen).not.toContain('tools__delete_everything');
    expect(seen.filter((n) => n.endsWith('__fails'))).toEqual([]);
    expect(seen).toContain('tools__echo');
    expect((await refusal(client.callTool({ name: 'tools__delete_everything', arguments: {} }))).code).toBe(
      RpcCode.InvalidParams,
    );
    // An allow list keeps only what it names (the deny list still wins).
    expect((await put({ mcp_allow_tools: 'tools__*', mcp_deny_tools: 'tools__slow_*' })).body.success).toBe(true);
    expect((await names(client)).every((n) => n.startsWith('tools__') && n !== 'tools__slow_count')).toBe(true);
    expect((await refusal(client.callTool({ name: 'ro__echo', arguments: { text: 'x' } }))).code).toBe(
      RpcCode.InvalidParams,
    );
    // The token's answer shows its lists; clearing them gives every tool back.
    const token = await g.user.call<{ mcp_allow_tools: string; mcp_deny_tools: string }>(
      'GET',
      `/api/token/${g.tokenId}`,
    );
    expect(token.body.data).toMatchObject({ mcp_allow_tools: 'tools__*', mcp_deny_tools: 'tools__slow_*' });
    expect((await put({ mcp_allow_tools: '', mcp_deny_tools: '' })).body.success).toBe(true);
    expect(await names(client)).toContain('ro__echo');
    // Lists longer than the limit are refused with a clear message.
    const long = await put({ mcp_allow_tools: 'x'.repeat(2001) });
    expect(long.body.success).toBe(false);
  });

  it("an organization's lists bind its tokens; the group's lists (mcp_setting.group_tools) bind the group", async () => {
    const owner = g.users[0]!;
    const org = await createOrg(owner, 'MCP Org');
    await setQuota(g.root, org.wallet_user_id, 1_000);
    const tok = await orgToken(owner, org.id, { name: 'agent' });
    const client = await connect(`sk-${tok.key}`);
    expect(await names(client)).toContain('tools__echo');
    await ok(owner, 'PUT', `/api/org/${org.id}`, { mcp_allow_tools: 'ro__*' });
    expect(await names(client)).toEqual(['ro__echo']);
    const self = await ok<{ mcp_allow_tools: string }>(owner, 'GET', `/api/org/${org.id}`);
    expect(self.mcp_allow_tools).toBe('ro__*');
    // A personal token is not bound by the organization's lists.
    const personal = await connect(g.key);
    expect(await names(personal)).toContain('tools__echo');

    const setGroupTools = (value: object) =>
      g.root.call('PUT', '/api/option/', { key: 'mcp_setting.group_tools', value: JSON.stringify(value) });
    expect((await setGroupTools({ default: { deny: 'tools__*' } })).body.success).toBe(true);
    expect((await names(personal)).some((n) => n.startsWith('tools__'))).toBe(false);
    expect((await refusal(personal.callTool({ name: 'tools__echo', arguments: { text: 'g' } }))).code).toBe(
      RpcCode.InvalidParams,
    );
    // A malformed value is refused by the option's schema.
    expect((await setGroupTools({ default: { deny: 42 } })).body.success).toBe(false);
    expect((await setGroupTools({})).body.success).toBe(true);
    expect(await names(personal)).toContain('tools__echo');
  });

  it('limits calls per minute and in flight per token and server; a refused call is neither counted nor billed', async () => {
    const client = await connect(g.key, '/mcp/limited');
    const rows = (await mcpRows()).length;
    const started = g.mock.waiting();
    const abort = new AbortController();
    const slow = client.callTool({ name: 'wait_forever', arguments: {} }, undefined, { signal: abort.signal });
    await started;
    // One in flight: a second call at the same time is refused at once.
    const busy = await refusal(client.callTool({ name: 'echo', arguments: { text: 'busy' } }));
    expect(busy.code).toBe(MCP_LIMITED);
    expect(busy.data).toMatchObject({ code: 'mcp_concurrency_limited', retry_after: 1 });
    abort.abort('done');
    await expect(slow).rejects.toThrow();
    // Calls per minute: two more fit (the cancelled call counted), then the window is used up.
    const answered: string[] = [];
    let limited: McpError | undefined;
    // (Enough tries that a refusal comes even if the minute turns once meanwhile.)
    for (let i = 0; i < 2 * PER_MINUTE + 2 && !limited; i++)
      await client.callTool({ name: 'echo', arguments: { text: `n${i}` } }).then(
        () => answered.push(`n${i}`),
        (e: unknown) => (limited = e as McpError),
      );
    // The refused in-flight call was not counted: PER_MINUTE - 1 answered after the first (more if the minute turned).
    expect(limited, 'a refusal once the minute is used up').toBeInstanceOf(McpError);
    expect(limited!.code).toBe(MCP_LIMITED);
    expect(limited!.data).toMatchObject({ code: 'mcp_rate_limited' });
    expect(Number((limited!.data as { retry_after: number }).retry_after)).toBeGreaterThanOrEqual(1);
    expect(answered.length).toBeGreaterThanOrEqual(PER_MINUTE - 1);
    // Rows: the cancelled call and the answered ones; no row for a refusal.
    expect((await mcpRows()).length).toBe(rows + 1 + answered.length);
    // Another token has its own count.
    const second = await addToken(g.t, g.user.userId!, { name: 'second' });
    const fresh = await connect(second.key, '/mcp/limited');
    expect((await fresh.callTool({ name: 'echo', arguments: { text: 'own count' } })).isError).toBeFalsy();
  });

  it('keeps the arguments in the log row only when the server asks, secrets masked at every depth', async () => {
    const client = await connect(g.key);
    const args = {
      text: 'visible',
      password: 'hunter2',
      nested: { api_key: 'abc', list: [{ Authorization: 'x' }, 'sk-live-ABCDEFGHIJKL'], note: 'plain' },
    };
    await client.callTool({ name: 'logged__echo', arguments: args });
    await client.callTool({ name: 'tools__echo', arguments: args });
    const rows = await mcpRows();
    const logged = JSON.parse(rows.filter((r) => r.model_name === 'mcp:logged/echo').at(-1)!.other) as {
      mcp_arguments: string;
    };
    expect(JSON.parse(logged.mcp_arguments)).toEqual({
      text: 'visible',
      password: '***',
      nested: { api_key: '***', list: [{ Authorization: '***' }, '***'], note: 'plain' },
    });
    for (const secret of ['hunter2', 'abc"', 'sk-live']) expect(logged.mcp_arguments).not.toContain(secret);
    const unlogged = rows.filter((r) => r.model_name === 'mcp:tools/echo').at(-1)!;
    expect(JSON.parse(unlogged.other)).not.toHaveProperty('mcp_arguments');
    expect(unlogged.other).not.toContain('hunter2');
  });
});
