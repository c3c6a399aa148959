import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { MCP_SERVERS_MAX } from '../../modules/mcp-servers/store.js';
import type { OpenedMcpServer } from '../../modules/mcp-servers/service.js';
import { allPages } from './upstream.js';

/** How long a server's tool list is trusted before a call reads it again. */
export const MCP_CATALOG_TTL_MS = 60_000;
/** A call naming a tool not in the list reads the list again at most this often (a tool added upstream). */
const MISS_REFRESH_MS = 2_000;

interface Listing {
  at: number;
  tools: Map<string, Tool>;
}

/**
 * The tools each upstream server lists, as one session (or one request) last read them: a tool call is checked
 * against it before anything is held, so a name the server does not have is refused, not billed, and a tool's
 * annotations (read-only) are the server's own. One entry per server version (bounded by the registry's size).
 */
export class ToolCatalog {
  private readonly listings = new BoundedMap<string, Listing>({ maxEntries: MCP_SERVERS_MAX });

  private static key(server: OpenedMcpServer): string {
    return `${server.id}:${server.updated_at}`;
  }

  /** Reads the server's whole tool list (every page) and remembers it. */
  async list(server: OpenedMcpServer, client: Client): Promise<Tool[]> {
    const tools = await allPages(async (cursor) => {
      const r = await client.listTools(cursor ? { cursor } : undefined);
      return { items: r.tools, next: r.nextCursor };
    });
    this.listings.set(ToolCatalog.key(server), { at: Date.now(), tools: new Map(tools.map((t) => [t.name, t])) });
    return tools;
  }

  /** The server's tool named `name`, from a fresh enough list (read again when stale or when the name is missing). */
  async find(server: OpenedMcpServer, client: Client, name: string): Promise<Tool | undefined> {
    const known = this.listings.get(ToolCatalog.key(server));
    const age = known ? Date.now() - known.at : Infinity;
    const hit = known?.tools.get(name);
    if (hit && age < MCP_CATALOG_TTL_MS) return hit;
    if (!hit && age < MISS_REFRESH_MS) return undefined;
    return (await this.list(server, client)).find((t) => t.name === name);
  }
}
