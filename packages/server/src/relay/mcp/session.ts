import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode as RpcCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { mcpServersOf, type OpenedMcpServer } from '../../modules/mcp-servers/service.js';
import type { Identified } from '../entry/authenticate.js';
import type { RelayContext } from '../pipeline/services.js';
import { ToolCatalog } from './catalog.js';
import { readThroughBreaker } from './health.js';
import { callTool, usableTools } from './tool-call.js';
import { exposedName, serverPermitted, splitExposed } from './permissions.js';
import { allPages, connectUpstream } from './upstream.js';

/** Resource URIs a session remembers the server of (from its lists), for reads on /mcp. */
const RESOURCE_URIS_MAX = 10_000;

/** The caller of a session as of its latest request (re-authenticated on each). */
export interface SessionCaller extends Identified {
  ip: string;
}

/**
 * One MCP session of a Tollway token: an MCP server facing the client, and, opened as it needs them, a client
 * of each upstream server it reaches. Every list and call reads the registry and the caller's permissions again.
 */
export class McpSession {
  readonly server: Server;
  /** The upstream servers' tool lists as this session last read them (calls are checked against them). */
  readonly catalog = new ToolCatalog();
  lastUsed = Date.now();
  private readonly upstreams = new Map<string, Promise<Client>>();
  private readonly resourceServer = new BoundedMap<string, string>({ maxEntries: RESOURCE_URIS_MAX });

  constructor(
    private readonly ctx: RelayContext,
    public caller: SessionCaller,
    /** The one server of /mcp/<server>; undefined on /mcp (every permitted server, names prefixed). */
    readonly single: string | undefined,
  ) {
    this.server = new Server(
      { name: 'tollway', version: ctx.config.version },
      { capabilities: { tools: {}, resources: {}, prompts: {} } },
    );
    this.install();
  }

  /** The enabled servers this caller may use (on /mcp/<server>: that one, when permitted). */
  private async permitted(): Promise<OpenedMcpServer[]> {
    const all = await mcpServersOf(this.ctx).enabledServers();
    return all.filter((s) => (!this.single || s.name === this.single) && serverPermitted(s, this.caller));
  }

  private async permittedByName(name: string): Promise<OpenedMcpServer> {
    const server = (await this.permitted()).find((s) => s.name === name);
    if (!server) throw new McpError(RpcCode.InvalidParams, `MCP server ${name.slice(0, 64)} is not available`);
    return server;
  }

  /** The session's client of `server`, connected on first use (again after the registry changed it). */
  upstream(server: OpenedMcpServer): Promise<Client> {
    const key = `${server.id}:${server.updated_at}`;
    let client = this.upstreams.get(key);
    if (!client) {
      client = connectUpstream(this.ctx, server);
      client.catch(() => this.upstreams.delete(key));
      this.upstreams.set(key, client);
    }
    return client;
  }

  /** Each permitted server's items (a server that fails is left out and logged, the others still answer). */
  private async gather<T>(
    has: 'tools' | 'resources' | 'prompts',
    read: (client: Client, server: OpenedMcpServer) => Promise<T[]>,
  ): Promise<T[]> {
    const out: T[] = [];
    for (const server of await this.permitted()) {
      const r = await readThroughBreaker(this.ctx, server, 'MCP upstream list failed', async () => {
        const client = await this.upstream(server);
        return client.getServerCapabilities()?.[has] ? read(client, server) : [];
      });
      if ('value' in r) out.push(...r.value);
    }
    return out;
  }

  private install(): void {
    const s = this.server;
    const single = this.single !== undefined;
    s.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: await this.gather<Tool>('tools', async (_client, server) =>
        (await usableTools(this.ctx, this, server)).map((t) => ({
          ...t,
          name: exposedName(server.name, t.name, single),
        })),
      ),
    }));
    s.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const target = splitExposed(request.params.name, this.single);
      const server = target && (await this.permitted()).find((x) => x.name === target.server);
      if (!target || !server)
        throw new McpError(
          RpcCode.InvalidParams,
          `tool ${request.params.name.slice(0, 128)} is not available to this token`,
        );
      return callTool(this.ctx, this, server, target.name, request.params, extra);
    });
    s.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: await this.gather<Resource>('resources', async (client, server) => {
        const items = await allPages(async (cursor) => {
          const r = await client.listResources(cursor ? { cursor } : undefined);
          return { items: r.resources, next: r.nextCursor };
        });
        for (const r of items) this.resourceServer.set(r.uri, server.name);
        return items;
      }),
    }));
    s.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: await this.gather<ResourceTemplate>('resources', (client) =>
        allPages(async (cursor) => {
          const r = await client.listResourceTemplates(cursor ? { cursor } : undefined);
          return { items: r.resourceTemplates, next: r.nextCursor };
        }),
      ),
    }));
    s.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const name = this.single ?? this.resourceServer.get(request.params.uri);
      if (!name)
        throw new McpError(RpcCode.InvalidParams, 'unknown resource: list the resources first (resources/list)');
      const server = await this.permittedByName(name);
      return (await this.upstream(server)).readResource({ uri: request.params.uri }, { signal: extra.signal });
    });
    s.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: await this.gather<Prompt>('prompts', async (client, server) =>
        (
          await allPages(async (cursor) => {
            const r = await client.listPrompts(cursor ? { cursor } : undefined);
            return { items: r.prompts, next: r.nextCursor };
          })
        ).map((p) => ({ ...p, name: exposedName(server.name, p.name, single) })),
      ),
    }));
    s.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      const target = splitExposed(request.params.name, this.single);
      if (!target) throw new McpError(RpcCode.InvalidParams, 'unknown prompt');
      const server = await this.permittedByName(target.server);
      const params = {
        name: target.name,
        ...(request.params.arguments ? { arguments: request.params.arguments } : {}),
      };
      return (await this.upstream(server)).getPrompt(params, { signal: extra.signal });
    });
  }

  /** Ends the session: its upstream clients are closed (a stdio server's process ends with its client). */
  async close(): Promise<void> {
    const clients = [...this.upstreams.values()];
    this.upstreams.clear();
    await Promise.allSettled(clients.map(async (c) => (await c).close()));
    await this.server.close().catch(() => undefined);
  }
}
