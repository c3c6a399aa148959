import crypto from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mcpServersOf } from '../../modules/mcp-servers/service.js';
import { authenticate } from '../entry/authenticate.js';
import type { RelayRequest } from '../entry/request.js';
import { RelayError } from '../pipeline/errors.js';
import type { RelayContext } from '../pipeline/services.js';
import { serverPermitted } from './permissions.js';
import { McpSession, type SessionCaller } from './session.js';
import { McpSessions, type SessionEntry } from './sessions.js';
import { sendWebResponse, webRequestOf } from './web-bridge.js';

/** JSON-RPC error codes of the HTTP layer, as the SDK's own server transport answers them. */
const RPC_SERVER_ERROR = -32000;
const RPC_SESSION_NOT_FOUND = -32001;
const RPC_PARSE_ERROR = -32700;
/** The relay's refusals that say "this key does not authenticate": 401 on the MCP endpoint. */
const AUTH_REFUSALS = new Set([
  'invalid_api_key',
  'token_disabled',
  'token_expired',
  'token_quota_exhausted',
  'user_banned',
]);
const SERVER_NAME = /^[a-z0-9_-]{1,64}$/;
const CLIENT_LEFT = 'the client went away';

/** The ids of the JSON-RPC requests a POST carries (one message or a batch). */
function requestIdsOf(body: unknown): RequestId[] {
  return (Array.isArray(body) ? body : [body]).flatMap((m: unknown) => (isJSONRPCRequest(m) ? [m.id] : []));
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string, data?: unknown) {
  if (status === 401) reply.header('www-authenticate', 'Bearer realm="tollway"');
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null });
}

/** A refused key as the Streamable HTTP transport expects: 401 (403 for an address or group the token may not use). */
function refuseKey(reply: FastifyReply, err: unknown) {
  if (!(err instanceof RelayError)) throw err;
  const status = err.status === 401 || AUTH_REFUSALS.has(err.code ?? '') ? 401 : err.status;
  return rpcError(reply, status, RPC_SERVER_ERROR, err.message, { code: err.code });
}

/**
 * The MCP endpoint (docs/operating/mcp.md): `/mcp` (every server the token may use, tools named
 * `<server>__<tool>`) and `/mcp/<server>`, over the Streamable HTTP transport, reached with a Tollway `sk-` key.
 * Every request authenticates its key as a relay call does; a session belongs to the token that opened it.
 */
export async function installMcpRoutes(scope: FastifyInstance, ctx: RelayContext): Promise<void> {
  const sessions = new McpSessions();
  scope.addHook('onClose', () => sessions.closeAll());

  const handle = async (req: FastifyRequest, reply: FastifyReply, single: string | undefined) => {
    let caller: SessionCaller;
    try {
      caller = { ...(await authenticate(req as unknown as RelayRequest, ctx.relay.tokens)), ip: req.ip };
    } catch (err) {
      return refuseKey(reply, err);
    }
    if (single !== undefined) {
      const server = SERVER_NAME.test(single) ? await mcpServersOf(ctx).store.findByName(single) : undefined;
      if (!server || !serverPermitted(mcpServersOf(ctx).opened(server), caller))
        return rpcError(reply, 404, RPC_SERVER_ERROR, 'MCP server not found');
    }
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = JSON.parse(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : String(req.body ?? ''));
      } catch {
        return rpcError(reply, 400, RPC_PARSE_ERROR, 'Parse error: the body is not JSON');
      }
    }
    const sid = req.headers['mcp-session-id'];
    let entry: SessionEntry | undefined;
    if (typeof sid === 'string') {
      entry = sessions.get(sid);
      // Another token's session (or another endpoint's) is as unknown as one that never was.
      if (!entry || entry.tokenId !== caller.auth.tokenId || entry.single !== single)
        return rpcError(reply, 404, RPC_SESSION_NOT_FOUND, 'Session not found');
      entry.session.caller = caller;
      entry.session.lastUsed = Date.now();
    } else if (req.method === 'POST' && isInitializeRequest(body)) {
      await sessions.makeRoom(caller.auth.tokenId);
      const session = new McpSession(ctx, caller, single);
      const created: SessionEntry = {
        session,
        tokenId: caller.auth.tokenId,
        single,
        transport: new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (id) => sessions.add(id, created),
          onsessionclosed: (id) => sessions.end(id),
        }),
      };
      await session.server.connect(created.transport);
      entry = created;
    } else return rpcError(reply, 400, RPC_SERVER_ERROR, 'Bad Request: no valid session ID provided');
    reply.hijack();
    // A client that goes away before its answers were written cancels what it asked, as notifications/cancelled
    // would: the tool call is cancelled upstream, its hold released uncharged (the SDK's transport would let it run).
    const asked = requestIdsOf(body);
    const { transport } = entry;
    if (asked.length)
      reply.raw.once('close', () => {
        if (reply.raw.writableFinished) return;
        for (const requestId of asked)
          transport.onmessage?.({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId, reason: CLIENT_LEFT },
          });
      });
    // The SDK's web-standard transport (its node wrapper pulls in an adapter that warns at every start).
    const response = await entry.transport.handleRequest(webRequestOf(req.raw, reply.raw), { parsedBody: body });
    await sendWebResponse(reply.raw, response);
  };

  for (const url of ['/mcp', '/mcp/:server']) {
    const serverOf = (req: FastifyRequest) => (req.params as { server?: string }).server;
    scope.post(url, (req, reply) => handle(req, reply, serverOf(req)));
    scope.get(url, (req, reply) => handle(req, reply, serverOf(req)));
    scope.delete(url, (req, reply) => handle(req, reply, serverOf(req)));
  }
}
