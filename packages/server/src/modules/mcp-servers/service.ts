import {
  ErrorCode,
  MCP_HEADER_MASK,
  type McpOAuthClientAuth,
  type McpServerHealth,
  type McpServerBody,
  type McpServerView,
  type McpTransport,
} from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/unique.js';
import { coded, notFound } from '../../lib/errors.js';
import { checkUserUrl } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy, OutboundBlockedError } from '../../lib/outbound-guard.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { mcpHealthOf } from './health.js';
import { MCP_SERVERS_MAX, McpServersStore, type McpServerRow, type NewMcpServerRow } from './store.js';

const missing = () => notFound('MCP server not found', ErrorCode.McpServerNotFound);
const nameTaken = () => coded(ErrorCode.McpServerNameTaken, 'this MCP server name is already used', undefined, 409);

/** A registered server with its headers opened: for the gateway's upstream connection only, never answered. */
export type OpenedMcpServer = Omit<McpServerRow, 'headers' | 'args' | 'oauth_client_secret'> & {
  transport: McpTransport;
  args: string[];
  headers: Record<string, string>;
  /** The OAuth client secret, opened ('' none). */
  oauth_client_secret: string;
};

const clientAuthOf = (v: string): McpOAuthClientAuth =>
  v === 'client_secret_post' ? 'client_secret_post' : 'client_secret_basic';

const argsOf = (text: string): string[] => {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
};

/** The MCP servers' registry: root's and administrators' list, headers sealed at rest and masked in answers. */
export class McpServers {
  readonly store: McpServersStore;

  constructor(private readonly ctx: AppContext) {
    this.store = new McpServersStore(ctx.db);
  }

  /** The stored headers, opened ({} when none). */
  private headersOf(row: McpServerRow): Record<string, string> {
    const text = this.ctx.secretBox.openNullable(row.headers);
    if (!text) return {};
    try {
      return JSON.parse(text) as Record<string, string>;
    } catch {
      return {};
    }
  }

  view(row: McpServerRow): McpServerView {
    const headers = Object.fromEntries(Object.keys(this.headersOf(row)).map((k) => [k, MCP_HEADER_MASK]));
    return {
      id: row.id,
      name: row.name,
      transport: row.transport as McpTransport,
      url: row.url,
      command: row.command,
      args: argsOf(row.args),
      headers,
      enabled: Number(row.enabled) === 1,
      allow_tools: row.allow_tools,
      deny_tools: row.deny_tools,
      allow_groups: row.allow_groups,
      price: Number(row.price),
      read_only: Number(row.read_only) === 1,
      rate_limit: Number(row.rate_limit),
      max_concurrent: Number(row.max_concurrent),
      log_arguments: Number(row.log_arguments) === 1,
      oauth_token_url: row.oauth_token_url,
      oauth_client_id: row.oauth_client_id,
      oauth_client_secret: row.oauth_client_secret ? MCP_HEADER_MASK : '',
      oauth_scope: row.oauth_scope,
      oauth_audience: row.oauth_audience,
      oauth_client_auth: clientAuthOf(row.oauth_client_auth),
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
    };
  }

  opened(row: McpServerRow): OpenedMcpServer {
    return {
      ...row,
      transport: row.transport as McpTransport,
      args: argsOf(row.args),
      headers: this.headersOf(row),
      oauth_client_secret: this.ctx.secretBox.openNullable(row.oauth_client_secret),
      oauth_client_auth: clientAuthOf(row.oauth_client_auth),
      price: Number(row.price),
      enabled: Number(row.enabled),
      read_only: Number(row.read_only),
      rate_limit: Number(row.rate_limit),
      max_concurrent: Number(row.max_concurrent),
      log_arguments: Number(row.log_arguments),
    };
  }

  async list(): Promise<McpServerView[]> {
    return (await this.store.list()).map((r) => this.view(r));
  }

  async row(id: number): Promise<McpServerRow> {
    const row = await this.store.find(id);
    if (!row) throw missing();
    return row;
  }

  async get(id: number): Promise<McpServerView> {
    return this.view(await this.row(id));
  }

  /** The enabled servers with their headers opened (the gateway's view). */
  async enabledServers(): Promise<OpenedMcpServer[]> {
    return (await this.store.list(true)).map((r) => this.opened(r));
  }

  /**
   * Checks where a server is reached: a remote one's URL passes the outbound guard (as a webhook's does when
   * saved; every connection is guarded again), a local one needs MCP_STDIO_ENABLED and a command.
   */
  private async checkEndpoint(transport: McpTransport, url: string, command: string): Promise<void> {
    if (transport === 'stdio') {
      if (!this.ctx.config.mcpStdioEnabled)
        throw coded(ErrorCode.McpStdioDisabled, 'stdio MCP servers are off (MCP_STDIO_ENABLED)');
      if (!command) throw coded(ErrorCode.InvalidInput, 'command is required for a stdio server');
      return;
    }
    if (!url) throw coded(ErrorCode.InvalidInput, 'url is required for an http or sse server');
    await this.checkUrl(url, 'url');
  }

  /**
   * Checks a server's OAuth client credentials as they will be stored: a token URL (http and sse servers only)
   * passes the outbound guard like the server's own and needs a client id; none set means no OAuth.
   */
  private async checkOAuth(transport: McpTransport, tokenUrl: string, clientId: string, moved: boolean) {
    if (!tokenUrl) return;
    if (transport === 'stdio')
      throw coded(ErrorCode.InvalidInput, 'OAuth client credentials are for http and sse servers only');
    if (!clientId) throw coded(ErrorCode.InvalidInput, 'oauth_client_id is required with oauth_token_url');
    if (moved) await this.checkUrl(tokenUrl, 'oauth_token_url');
  }

  private async checkUrl(url: string, field: string): Promise<void> {
    try {
      await checkUserUrl(fetchPolicy(this.ctx.options), url);
    } catch (err) {
      if (err instanceof OutboundBlockedError)
        throw coded(err.rule, `${field} is not allowed: ${err.message}`, err.reasonParams());
      throw err;
    }
  }

  /** The OAuth fields of a write as stored (the secret sealed); on update only the present ones. */
  private oauthFields(body: McpServerBody): Partial<NewMcpServerRow> {
    const out: Partial<NewMcpServerRow> = {};
    if (body.oauth_token_url !== undefined) out.oauth_token_url = body.oauth_token_url;
    if (body.oauth_client_id !== undefined) out.oauth_client_id = body.oauth_client_id;
    if (body.oauth_scope !== undefined) out.oauth_scope = body.oauth_scope;
    if (body.oauth_audience !== undefined) out.oauth_audience = body.oauth_audience;
    if (body.oauth_client_auth !== undefined) out.oauth_client_auth = body.oauth_client_auth;
    // The mask sent back (a form showing the stored secret as ***) keeps the stored secret, as an absent one does.
    const secret = body.oauth_client_secret;
    if (secret !== undefined && secret !== MCP_HEADER_MASK)
      out.oauth_client_secret = secret ? this.ctx.secretBox.seal(secret) : '';
    return out;
  }

  private sealHeaders(headers: Record<string, string>): string {
    return Object.keys(headers).length ? this.ctx.secretBox.seal(JSON.stringify(headers)) : '';
  }

  async create(body: McpServerBody & { name: string; transport: McpTransport }): Promise<McpServerView> {
    const url = body.url ?? '';
    const command = body.command ?? '';
    await this.checkEndpoint(body.transport, url, command);
    await this.checkOAuth(body.transport, body.oauth_token_url ?? '', body.oauth_client_id ?? '', true);
    if (await this.store.nameTaken(body.name)) throw nameTaken();
    if ((await this.store.count()) >= MCP_SERVERS_MAX)
      throw coded(ErrorCode.InvalidInput, `at most ${MCP_SERVERS_MAX} MCP servers`);
    const now = nowSeconds();
    const row: NewMcpServerRow = {
      name: body.name,
      transport: body.transport,
      url: body.transport === 'stdio' ? '' : url,
      command: body.transport === 'stdio' ? command : '',
      args: JSON.stringify(body.transport === 'stdio' ? (body.args ?? []) : []),
      headers: this.sealHeaders(body.headers ?? {}),
      enabled: body.enabled === false ? 0 : 1,
      allow_tools: body.allow_tools ?? '',
      deny_tools: body.deny_tools ?? '',
      allow_groups: body.allow_groups ?? '',
      price: body.price ?? 0,
      read_only: body.read_only ? 1 : 0,
      rate_limit: body.rate_limit ?? 0,
      max_concurrent: body.max_concurrent ?? 0,
      log_arguments: body.log_arguments ? 1 : 0,
      oauth_client_secret: '',
      ...this.oauthFields(body),
      created_at: now,
      updated_at: now,
    };
    let id: number;
    try {
      id = await this.store.insert(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      throw err;
    }
    return this.get(id);
  }

  /** Changes the body's present fields; `headers`, when present, replaces every stored header. */
  async update(id: number, body: McpServerBody): Promise<McpServerView> {
    const before = await this.row(id);
    const transport = body.transport ?? (before.transport as McpTransport);
    const url = body.url ?? before.url;
    const command = body.command ?? before.command;
    const moved = body.transport !== undefined || body.url !== undefined || body.command !== undefined;
    // A stdio server already registered keeps working only while stdio is on; it can be switched off or deleted.
    if (moved || (body.enabled === true && transport === 'stdio')) await this.checkEndpoint(transport, url, command);
    const tokenUrl = body.oauth_token_url ?? before.oauth_token_url;
    const clientId = body.oauth_client_id ?? before.oauth_client_id;
    await this.checkOAuth(transport, tokenUrl, clientId, body.oauth_token_url !== undefined);
    const name = body.name ?? before.name;
    if (name !== before.name && (await this.store.nameTaken(name, id))) throw nameTaken();
    const fields: Partial<NewMcpServerRow> = { updated_at: nowSeconds(), name, transport, ...this.oauthFields(body) };
    fields.url = transport === 'stdio' ? '' : url;
    fields.command = transport === 'stdio' ? command : '';
    if (body.args !== undefined || transport !== 'stdio')
      fields.args = JSON.stringify(transport === 'stdio' ? (body.args ?? []) : []);
    if (body.headers !== undefined) fields.headers = this.sealHeaders(body.headers);
    if (body.enabled !== undefined) fields.enabled = body.enabled ? 1 : 0;
    if (body.allow_tools !== undefined) fields.allow_tools = body.allow_tools;
    if (body.deny_tools !== undefined) fields.deny_tools = body.deny_tools;
    if (body.allow_groups !== undefined) fields.allow_groups = body.allow_groups;
    if (body.price !== undefined) fields.price = body.price;
    if (body.read_only !== undefined) fields.read_only = body.read_only ? 1 : 0;
    if (body.rate_limit !== undefined) fields.rate_limit = body.rate_limit;
    if (body.max_concurrent !== undefined) fields.max_concurrent = body.max_concurrent;
    if (body.log_arguments !== undefined) fields.log_arguments = body.log_arguments ? 1 : 0;
    try {
      await this.store.update(id, fields);
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      throw err;
    }
    // Edited (another address, new credentials): its breaker closes, as a channel's does.
    mcpHealthOf(this.ctx).reset(id);
    return this.get(id);
  }

  async delete(id: number): Promise<void> {
    if (!(await this.store.delete(id))) throw missing();
    mcpHealthOf(this.ctx).forget(id);
  }

  /** A server's health (its breaker on this node). */
  async health(id: number): Promise<McpServerHealth> {
    return mcpHealthOf(this.ctx).health(await this.row(id));
  }

  /** Every registered server's health. */
  async healthOfAll(): Promise<McpServerHealth[]> {
    const health = mcpHealthOf(this.ctx);
    return (await this.store.list()).map((r) => health.health(r));
  }
}

export const mcpServersOf = perContext((ctx: AppContext) => new McpServers(ctx));
