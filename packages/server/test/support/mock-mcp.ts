import crypto from 'node:crypto';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { listenLocally } from './local-server.js';

/** A real MCP server (the official SDK's McpServer over Streamable HTTP) with tools the gateway tests need. */
export interface MockMcp {
  url: string;
  port: number;
  /** Calls of each tool that reached this server (UPSTREAM_FAILS's too). */
  calls: Record<string, number>;
  /** Calls of wait_forever ended by the caller's cancellation. */
  cancelled: number;
  /** The Authorization headers requests came with. */
  authorizations: Set<string>;
  /** Resolves when the next wait_forever call has started (call it before the call). */
  waiting(): Promise<void>;
  close(): Promise<void>;
}

const PROGRESS_STEP_MS = 15;

/**
 * A schema shape as the SDK's types take it: the SDK resolves the workspace root's zod (3.25, whose zod/v4 types are
 * another copy than this package's zod 4); the runtime schema is the same (the SDK reads zod 4's `_zod`).
 */
const shape = (s: Record<string, unknown>): ZodRawShapeCompat => s as ZodRawShapeCompat;

function buildServer(mock: MockMcp, waiters: (() => void)[]): McpServer {
  const server = new McpServer({ name: 'mock-mcp', version: '1.0.0' });
  const count = (name: string) => (mock.calls[name] = (mock.calls[name] ?? 0) + 1);
  server.registerTool(
    'echo',
    {
      description: 'Echoes its text',
      inputSchema: shape({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    ({ text }) => {
      count('echo');
      return { content: [{ type: 'text', text: `echo: ${String(text)}` }] };
    },
  );
  server.registerTool(
    'slow_count',
    {
      description: 'Counts to steps, reporting progress',
      inputSchema: shape({ steps: z.number().int().min(1).max(20) }),
    },
    async ({ steps }, extra) => {
      const countTo = Number(steps);
      count('slow_count');
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= countTo; i++) {
        await new Promise((r) => setTimeout(r, PROGRESS_STEP_MS));
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: countTo, message: `step ${i}` },
          });
      }
      return { content: [{ type: 'text', text: `counted to ${countTo}` }] };
    },
  );
  server.registerTool('wait_forever', { description: 'Waits until cancelled' }, async (extra) => {
    count('wait_forever');
    for (const w of waiters.splice(0)) w();
    // Asked for progress: one notification says the call has started (a client can cancel it from there).
    const token = extra._meta?.progressToken;
    if (token !== undefined)
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 0 } });
    await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve()));
    mock.cancelled++;
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });
  server.registerTool('delete_everything', { description: 'A tool the gateway should refuse' }, () => {
    count('delete_everything');
    return { content: [{ type: 'text', text: 'deleted' }] };
  });
  server.registerTool('fails', { description: 'A tool that reports an error' }, () => {
    count('fails');
    return { isError: true, content: [{ type: 'text', text: 'it failed' }] };
  });
  // Listed, so the gateway lets calls through; the HTTP layer answers each with a 500 before this runs.
  server.registerTool(UPSTREAM_FAILS, { description: 'A tool whose server fails every call' }, () => ({
    content: [{ type: 'text', text: 'never answered' }],
  }));
  server.registerResource('readme', 'mock://readme', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, text: 'the mock readme' }],
  }));
  server.registerPrompt('greet', { argsSchema: shape({ who: z.string() }) }, ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${String(who)}` } }],
  }));
  return server;
}

/** A tool the server lists but whose calls it answers with an HTTP 500 (an upstream that fails mid-call). */
export const UPSTREAM_FAILS = 'upstream_fails';

const isCallOf = (body: unknown, tool: string): boolean => {
  const b = body as { method?: unknown; params?: { name?: unknown } } | undefined;
  return b?.method === 'tools/call' && b.params?.name === tool;
};

/** Starts the mock MCP server on 127.0.0.1 (a session per client, as the SDK's example servers keep them). */
export async function startMockMcp(): Promise<MockMcp> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const waiters: (() => void)[] = [];
  const mock: MockMcp = {
    url: '',
    port: 0,
    calls: {},
    cancelled: 0,
    authorizations: new Set(),
    waiting: () => new Promise<void>((resolve) => waiters.push(resolve)),
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.headers.authorization) mock.authorizations.add(req.headers.authorization);
        const text = Buffer.concat(chunks).toString('utf8');
        const body: unknown = text ? JSON.parse(text) : undefined;
        if (isCallOf(body, UPSTREAM_FAILS)) {
          // A server that fails the call itself (an HTTP 500, no JSON-RPC answer): the gateway's call errors.
          mock.calls[UPSTREAM_FAILS] = (mock.calls[UPSTREAM_FAILS] ?? 0) + 1;
          res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream failure');
          return;
        }
        const sid = req.headers['mcp-session-id'];
        let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
        if (!transport) {
          if (req.method !== 'POST' || !isInitializeRequest(body)) {
            res.writeHead(400).end();
            return;
          }
          const made = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => crypto.randomUUID(),
            onsessioninitialized: (id) => void transports.set(id, made),
          });
          transport = made;
          await buildServer(mock, waiters).connect(made);
        }
        await transport.handleRequest(req, res, body);
      })();
    });
  });
  const local = await listenLocally(server);
  mock.url = `${local.url}/mcp`;
  mock.port = local.port;
  mock.close = async () => {
    for (const t of transports.values()) await t.close().catch(() => undefined);
    await local.close();
  };
  return mock;
}
