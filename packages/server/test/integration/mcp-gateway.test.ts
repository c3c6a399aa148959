import { ErrorCode as RpcCode, McpError, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addToken, setQuota, userQuota } from '../support/gateway.js';
import { hostileValues, nestedText } from '../support/hostile-bodies.js';
import { allowLocalMcp, mcpClients, mcpLogs as mcpLogsOf, registerMcpServers } from '../support/mcp-gateway.js';
import { startMockMcp, type MockMcp } from '../support/mock-mcp.js';

const UPSTREAM_CREDENTIAL = 'Bearer upstream-cred-0042';
const PAID_PRICE = 7;

/**
 * The MCP gateway end to end on every database: the official SDK's client against Tollway's /mcp, Tollway's
 * upstream clients against a real SDK McpServer. Lists filtered by permission, a streamed call with progress,
 * cancellation passed upstream, refusals (tool, key, session), billing through the ledger, a usage row per call.
 */
describe.each(dialects)('MCP gateway (%s)', (dialect) => {
  const g = useGateway<MockMcp>(
    dialect,
    { mock: startMockMcp, user: 'mcp-caller', quota: 1_000, users: ['mcp-other'], env: { CRYPTO_SECRET: 'mcp-0042' } },
    async (gw) => {
      await allowLocalMcp(gw.root, gw.mock.port);
      await registerMcpServers(gw.root, gw.mock.url, [
        { name: 'alpha', deny_tools: 'delete_*', headers: { Authorization: UPSTREAM_CREDENTIAL } },
        { name: 'paid', allow_tools: 'echo', price: PAID_PRICE },
        { name: 'vip', allow_groups: 'vip' },
      ]);
    },
  );
  const clients = mcpClients(() => g.base);
  afterAll(() => clients.closeAll());
  const connect = clients.connect;
  const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;
  const mcpLogs = () => mcpLogsOf(g.t);

  it('lists only the tools the token may use, namespaced by server; /mcp/<server> lists its own', async () => {
    const { client } = await connect(g.key);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual([
      'alpha__echo',
      'alpha__fails',
      'alpha__slow_count',
      'alpha__upstream_fails',
      'alpha__wait_forever',
      'paid__echo',
    ]);
    // The upstream got the registered credential; the caller never sees it.
    expect([...g.mock.authorizations]).toEqual([UPSTREAM_CREDENTIAL]);
    const { client: one } = await connect(g.key, '/mcp/paid');
    expect((await one.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect((await one.callTool({ name: 'echo', arguments: { text: 'direct' } })).content).toEqual([
      { type: 'text', text: 'echo: direct' },
    ]);
    // Resources and prompts are proxied too.
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toContain('mock://readme');
    expect(textOf({ content: (await client.readResource({ uri: 'mock://readme' })).contents })).toBe('the mock readme');
    const prompt = await client.getPrompt({ name: 'alpha__greet', arguments: { who: 'Ada' } });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Say hello to Ada' });
  });

  it('streams a tool call with its progress notifications', async () => {
    const { client } = await connect(g.key);
    const seen: Progress[] = [];
    const result = await client.callTool({ name: 'alpha__slow_count', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect(textOf(result)).toBe('counted to 3');
    expect(seen.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, 3, 'step 1'],
      [2, 3, 'step 2'],
      [3, 3, 'step 3'],
    ]);
  });

  it('passes the caller cancellation upstream', async () => {
    const { client } = await connect(g.key);
    const abort = new AbortController();
    const started = g.mock.waiting();
    const call = client.callTool({ name: 'alpha__wait_forever', arguments: {} }, undefined, { signal: abort.signal });
    await started;
    abort.abort('the user stopped it');
    await expect(call).rejects.toThrow();
    await expect.poll(() => g.mock.cancelled).toBe(1);
  });

  it('cancels a call upstream, and charges nothing, when its client goes away without a word', async () => {
    const res = await g.root.call('POST', '/api/mcp/servers/', {
      transport: 'http',
      url: g.mock.url,
      name: 'waits',
      allow_tools: 'wait_forever',
      price: PAID_PRICE,
    });
    expect(res.body.success, res.body.message).toBe(true);
    const userId = g.user.userId!;
    const quota = await userQuota(g.t, userId);
    const { transport } = await connect(g.key);
    const cancelled = g.mock.cancelled;
    const started = g.mock.waiting();
    const leave = new AbortController();
    // A raw POST of the call, its connection dropped once the upstream runs it (no notifications/cancelled sent).
    const call = fetch(`${g.base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${g.key}`,
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'waits__wait_forever' } }),
      signal: leave.signal,
    }).then((r) => r.text());
    await started;
    leave.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => g.mock.cancelled).toBe(cancelled + 1);
    await expect
      .poll(async () => (await mcpLogs()).filter((r) => r.model_name === 'mcp:waits/wait_forever').length)
      .toBe(1);
    const row = (await mcpLogs()).find((r) => r.model_name === 'mcp:waits/wait_forever')!;
    expect([Number(row.quota), JSON.parse(row.other).mcp_status]).toEqual([0, 'cancelled']);
    expect(await userQuota(g.t, userId)).toBe(quota);
    expect((await g.root.call('DELETE', `/api/mcp/servers/${(res.body.data as { id: number }).id}`)).body.success).toBe(
      true,
    );
  });

  it('refuses a tool the lists deny, a server the group may not use, and unknown names, as JSON-RPC errors', async () => {
    const { client } = await connect(g.key);
    const before = g.mock.calls.delete_everything ?? 0;
    for (const name of ['alpha__delete_everything', 'vip__echo', 'paid__slow_count', 'nosuch__echo', 'echo']) {
      const err = await client.callTool({ name, arguments: {} }).catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(McpError);
      expect((err as McpError).code, name).toBe(RpcCode.InvalidParams);
    }
    expect(g.mock.calls.delete_everything ?? 0).toBe(before);
    await expect(connect(g.key, '/mcp/vip')).rejects.toMatchObject({ code: 404 });
    await expect(connect(g.key, '/mcp/nosuch')).rejects.toMatchObject({ code: 404 });
  });

  it('answers hostile bodies on /mcp and /mcp/<server> with a JSON-RPC error, never a 5xx; the upstream receives none', async () => {
    const { transport } = await connect(g.key);
    const upstreamCalls = () => Object.values(g.mock.calls).reduce((n, c) => n + (c ?? 0), 0);
    const before = upstreamCalls();
    const broken = ['', '{"jsonrpc":', '[1,2,3]', '"text"', 'null', '42', nestedText(10_000), 'x'.repeat(200_000)];
    const shapes = hostileValues.flatMap((v) => [
      { jsonrpc: '2.0', id: 1, method: v },
      { jsonrpc: v, id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: v },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: v, arguments: v } },
    ]);
    const bodies = [...broken, ...shapes.map((b) => JSON.stringify(b).replace('"__deep__"', nestedText(5_000)))];
    const failures: string[] = [];
    for (const path of ['/mcp', '/mcp/alpha'])
      for (const session of [undefined, transport.sessionId!])
        for (const body of bodies) {
          const res = await fetch(`${g.base}${path}`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${g.key}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...(session && path === '/mcp' ? { 'mcp-session-id': session } : {}),
            },
            body,
          });
          const text = await res.text();
          // Outside a session the transport refuses with a 4xx; inside one, a request it cannot serve is answered
          // (200, JSON or one SSE event) with a JSON-RPC error, as the protocol defines.
          const json = res.headers.get('content-type')?.includes('text/event-stream')
            ? (/^data: (.*)$/m.exec(text)?.[1] ?? '')
            : text;
          let rpc: { error?: { code?: unknown } } | undefined;
          try {
            rpc = JSON.parse(json) as typeof rpc;
          } catch {
            rpc = undefined;
          }
          const label = `${path}${session ? ' (session)' : ''} ${body.slice(0, 60)}`;
          if (res.status >= 500 || (res.status >= 300 && res.status < 400) || typeof rpc?.error?.code !== 'number')
            failures.push(`${label}: ${res.status} ${text.slice(0, 120)}`);
        }
    expect(failures).toEqual([]);
    expect(upstreamCalls()).toBe(before);
  });

  it('refuses no key, an unknown, a disabled or an expired token with 401, and another token using a session', async () => {
    await expect(connect(undefined)).rejects.toMatchObject({ code: 401 });
    await expect(connect('sk-not-a-real-key')).rejects.toMatchObject({ code: 401 });
    const expired = await addToken(g.t, g.user.userId!, { name: 'expired', expiredTime: 1 });
    await expect(connect(expired.key)).rejects.toMatchObject({ code: 401 });
    const doomed = await addToken(g.t, g.user.userId!, { name: 'doomed' });
    const { client } = await connect(doomed.key);
    const disabled = await g.user.call('PUT', '/api/token/?status_only=true', { id: doomed.id, status: 2 });
    expect(disabled.body.success, disabled.body.message).toBe(true);
    await expect(client.listTools()).rejects.toMatchObject({ code: 401 });
    // Another user's token cannot use this user's session (it is as unknown as a session that never was).
    const { transport } = await connect(g.key);
    const other = await addToken(g.t, g.users[0]!.userId!, { name: 'other' });
    const res = await fetch(`${g.base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${other.key}`,
        'mcp-session-id': transport.sessionId!,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Session not found');
  });

  it('bills a priced tool through the ledger exactly, refuses a short balance before the upstream, logs every call', async () => {
    const userId = g.user.userId!;
    await setQuota(g.root, userId, 20);
    const { client } = await connect(g.key);
    const logsBefore = (await mcpLogs()).length;
    const before = await userQuota(g.t, userId);
    expect(before).toBe(20);
    const echoes = g.mock.calls.echo ?? 0;
    for (const text of ['one', 'two'])
      expect(textOf(await client.callTool({ name: 'paid__echo', arguments: { text } }))).toBe(`echo: ${text}`);
    expect(await userQuota(g.t, userId)).toBe(20 - 2 * PAID_PRICE);
    // 6 left: the third call is refused before it reaches the upstream, and costs nothing.
    const short = await client.callTool({ name: 'paid__echo', arguments: { text: 'three' } }).catch((e: unknown) => e);
    expect(short).toBeInstanceOf(McpError);
    expect((short as McpError).message).toContain('insufficient user quota');
    expect(g.mock.calls.echo).toBe(echoes + 2);
    expect(await userQuota(g.t, userId)).toBe(20 - 2 * PAID_PRICE);
    // A free tool still works, and a tool error is a served (logged) call.
    expect((await client.callTool({ name: 'alpha__fails', arguments: {} })).isError).toBe(true);

    const rows = (await mcpLogs()).slice(logsBefore);
    expect(rows.map((r) => [r.model_name, Number(r.quota), r.user_id, r.token_id])).toEqual([
      ['mcp:paid/echo', PAID_PRICE, userId, g.tokenId],
      ['mcp:paid/echo', PAID_PRICE, userId, g.tokenId],
      ['mcp:alpha/fails', 0, userId, g.tokenId],
    ]);
    const other = JSON.parse(rows[0]!.other) as Record<string, unknown>;
    expect(other).toMatchObject({ mcp_server: 'paid', mcp_tool: 'echo', mcp_status: 'ok', mcp_price: PAID_PRICE });
    expect(other.request_bytes).toBe(Buffer.byteLength(JSON.stringify({ text: 'one' })));
    expect(Number(other.response_bytes)).toBeGreaterThan(0);
    expect(JSON.parse(rows[2]!.other)).toMatchObject({ mcp_status: 'tool_error' });
    // Arguments are never logged.
    expect(JSON.stringify(rows)).not.toContain('"one"');
    // Earlier calls were logged too: the streamed one and the cancelled one (charged nothing).
    const all = await mcpLogs();
    const cancelled = all.find((r) => r.model_name === 'mcp:alpha/wait_forever')!;
    expect([Number(cancelled.quota), JSON.parse(cancelled.other).mcp_status]).toEqual([0, 'cancelled']);
    expect(JSON.parse(all.find((r) => r.model_name === 'mcp:alpha/slow_count')!.other).progress_notifications).toBe(3);
  });
});
