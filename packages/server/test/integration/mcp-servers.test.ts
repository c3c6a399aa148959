import { ErrorCode } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

interface McpServer {
  id: number;
  name: string;
  transport: string;
  url: string;
  command: string;
  headers: Record<string, string>;
  enabled: boolean;
  price: number;
}

const SECRET = 'Bearer upstream-secret-0042';

/**
 * The MCP gateway's registry on every database: administrators register servers, credentials are sealed at rest
 * and masked in every answer and audit row, a remote URL passes the outbound guard, stdio needs MCP_STDIO_ENABLED.
 */
describe.each(dialects)('MCP servers registry (%s)', (dialect) => {
  const app = useApp(dialect, { admins: ['mcp-admin'], users: ['mcp-user'], env: { CRYPTO_SECRET: 'mcp-test-0042' } });
  const ok = async <T>(c: Client, method: string, url: string, body?: unknown): Promise<T> => {
    const res = await c.call<T>(method, url, body);
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data as T;
  };
  const codeOf = (res: { body: unknown }) => (res.body as { code?: string }).code;

  it('registers a remote server, masks its headers everywhere and keeps them sealed at rest', async () => {
    const admin = app.admins[0]!;
    const made = await ok<McpServer>(admin, 'POST', '/api/mcp/servers/', {
      name: 'docs-search',
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: SECRET },
      price: 7,
    });
    expect(made).toMatchObject({ name: 'docs-search', transport: 'http', enabled: true, price: 7 });
    expect(made.headers).toEqual({ Authorization: '***' });
    const listed = await ok<McpServer[]>(admin, 'GET', '/api/mcp/servers/');
    expect(JSON.stringify(listed)).not.toContain('upstream-secret');
    const stored = await app.t.database.db.kysely
      .selectFrom('mcp_servers')
      .select('headers')
      .where('id', '=', made.id)
      .executeTakeFirstOrThrow();
    expect(stored.headers).not.toContain('upstream-secret');
    const audit = await app.t.database.db.kysely
      .selectFrom('audit_logs')
      .select(['action', 'detail'])
      .where('action', 'like', 'mcp_server.%')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['mcp_server.create']);
    expect(audit[0]!.detail).not.toContain('upstream-secret');

    // A change without headers keeps them; with headers, they replace the stored ones.
    await ok(admin, 'PUT', `/api/mcp/servers/${made.id}`, { enabled: false, deny_tools: 'delete_*' });
    expect((await ok<McpServer>(admin, 'GET', `/api/mcp/servers/${made.id}`)).headers).toEqual({
      Authorization: '***',
    });
    const changed = await ok<McpServer>(admin, 'PUT', `/api/mcp/servers/${made.id}`, { headers: { 'X-Key': 'k' } });
    expect([changed.enabled, changed.headers]).toEqual([false, { 'X-Key': '***' }]);
  });

  it('refuses a taken name, a bad name, a URL the outbound guard blocks and stdio while it is off', async () => {
    const admin = app.admins[0]!;
    const again = await admin.call('POST', '/api/mcp/servers/', {
      name: 'docs-search',
      transport: 'http',
      url: 'https://other.example.com/mcp',
    });
    expect(codeOf(again)).toBe(ErrorCode.McpServerNameTaken);
    for (const name of ['Upper', 'a__b', 'sp ace', ''])
      expect(
        (await admin.call('POST', '/api/mcp/servers/', { name, transport: 'http', url: 'https://x.example' })).body,
      ).toMatchObject({ success: false });
    const priv = await admin.call('POST', '/api/mcp/servers/', {
      name: 'private',
      transport: 'http',
      url: 'http://127.0.0.1/mcp',
    });
    expect(codeOf(priv)).toBe(ErrorCode.OutboundAddressBlocked);
    const scheme = await admin.call('POST', '/api/mcp/servers/', {
      name: 'ftp',
      transport: 'sse',
      url: 'ftp://x.example',
    });
    expect(codeOf(scheme)).toBe(ErrorCode.OutboundSchemeRefused);
    const local = await admin.call('POST', '/api/mcp/servers/', { name: 'local', transport: 'stdio', command: 'node' });
    expect(codeOf(local)).toBe(ErrorCode.McpStdioDisabled);
  });

  it('is for administrators only, and deletes', async () => {
    const user = app.users[0]!;
    expect((await user.call('GET', '/api/mcp/servers/')).body).toMatchObject({ success: false });
    const [first] = await ok<McpServer[]>(app.root, 'GET', '/api/mcp/servers/');
    await ok(app.root, 'DELETE', `/api/mcp/servers/${first!.id}`);
    expect(codeOf(await app.root.call('GET', `/api/mcp/servers/${first!.id}`))).toBe(ErrorCode.McpServerNotFound);
  });
});
