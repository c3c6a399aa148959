import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import type { McpSession } from './session.js';

/** MCP sessions held in all (each may hold upstream connections); the least recently used beyond are ended. */
export const MCP_SESSIONS_MAX = 1_000;
/** Sessions one token may hold; its least recently used beyond this is ended. */
export const MCP_SESSIONS_PER_TOKEN = 16;
/** A session unused this long is ended. */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
const SWEEP_EVERY_MS = 60_000;

/** A session, its transport, and whose it is. */
export interface SessionEntry {
  session: McpSession;
  transport: WebStandardStreamableHTTPServerTransport;
  tokenId: number;
  /** The server of /mcp/<server>; undefined on /mcp. */
  single: string | undefined;
}

/**
 * The live MCP sessions by their id (a random UUID the server made; an unknown id finds nothing and adds nothing).
 * Never full by eviction: room is made by ending the least recently used session (its upstream clients closed),
 * first of the same token when it holds MCP_SESSIONS_PER_TOKEN, and idle ones are ended every minute.
 */
export class McpSessions {
  // Twice the cap: makeRoom keeps it at MCP_SESSIONS_MAX; the margin is for initializations racing each other.
  private readonly byId = new BoundedMap<string, SessionEntry>({ maxEntries: MCP_SESSIONS_MAX * 2 });
  private readonly sweep: NodeJS.Timeout;

  constructor() {
    this.sweep = setInterval(() => void this.endIdle(), SWEEP_EVERY_MS);
    this.sweep.unref();
  }

  get(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  /** Room for one more session of `tokenId`: that token's, then anyone's, least recently used is ended. */
  async makeRoom(tokenId: number): Promise<void> {
    const entries = [...this.byId];
    const own = entries.filter(([, e]) => e.tokenId === tokenId);
    if (own.length >= MCP_SESSIONS_PER_TOKEN) await this.end(oldest(own));
    else if (entries.length >= MCP_SESSIONS_MAX) await this.end(oldest(entries));
  }

  add(id: string, entry: SessionEntry): void {
    this.byId.set(id, entry);
  }

  /** Ends a session: forgotten, its transport and upstream clients closed. */
  async end(id: string | undefined): Promise<void> {
    if (id === undefined) return;
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    await entry.session.close();
    await entry.transport.close().catch(() => undefined);
  }

  private async endIdle(): Promise<void> {
    const before = Date.now() - MCP_SESSION_IDLE_MS;
    for (const [id, e] of [...this.byId]) if (e.session.lastUsed < before) await this.end(id);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweep);
    for (const [id] of [...this.byId]) await this.end(id);
  }
}

function oldest(entries: [string, SessionEntry][]): string | undefined {
  let found: [string, SessionEntry] | undefined;
  for (const e of entries) if (!found || e[1].session.lastUsed < found[1].session.lastUsed) found = e;
  return found?.[0];
}
