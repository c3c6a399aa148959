import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { listenLocally, type LocalServer } from './local-server.js';

/** A client the mock token endpoint knows: its secret and the lifetime of the tokens it gets (seconds). */
export interface OAuthClient {
  secret: string;
  expiresIn: number;
}

/** One token request as the endpoint received it. */
export interface TokenRequest {
  clientId: string;
  /** How the client authenticated: HTTP Basic or client_secret_post. */
  method: 'basic' | 'post' | 'none';
  form: Record<string, string>;
}

/**
 * An OAuth 2.0 authorization server (client credentials grant, RFC 6749 §4.4) and, on another port, a real MCP
 * server (the official SDK's McpServer over Streamable HTTP, stateless) that answers only requests bearing a token
 * the authorization server issued and has not revoked (else 401).
 */
export interface MockOAuthMcp {
  tokenUrl: string;
  tokenPort: number;
  mcpUrl: string;
  mcpPort: number;
  clients: Map<string, OAuthClient>;
  /** Every token request, valid or not. */
  tokenRequests: TokenRequest[];
  /** The bearer tokens MCP requests came with (valid ones), in order. */
  bearers: string[];
  /** Requests the MCP server refused with 401. */
  refused: number;
  /** The tokens issued to a client, in order. */
  issued(clientId: string): string[];
  /** Makes a token invalid (the MCP server answers 401 to it from now on). */
  revoke(token: string): void;
  close(): Promise<void>;
}

const readBody = (req: http.IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

const formDecode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));

function buildServer(): McpServer {
  const server = new McpServer({ name: 'mock-oauth-mcp', version: '1.0.0' });
  server.registerTool('whoami', { description: 'Says the caller was let in' }, () => ({
    content: [{ type: 'text', text: 'authorized' }],
  }));
  return server;
}

export async function startMockOAuthMcp(): Promise<MockOAuthMcp> {
  const valid = new Map<string, string>(); // token → client id
  let serial = 0;
  const mock: Partial<MockOAuthMcp> = { clients: new Map(), tokenRequests: [], bearers: [], refused: 0 };
  const m = mock as MockOAuthMcp;
  const issuedAll: [string, string][] = [];
  m.issued = (clientId) => issuedAll.filter(([, c]) => c === clientId).map(([t]) => t);
  m.revoke = (token) => void valid.delete(token);

  const tokenServer = http.createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const form = Object.fromEntries(new URLSearchParams(text));
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      let clientId = '';
      let secret = '';
      let method: TokenRequest['method'] = 'none';
      const auth = req.headers.authorization ?? '';
      if (auth.startsWith('Basic ')) {
        const [id = '', sec = ''] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
        [clientId, secret, method] = [formDecode(id), formDecode(sec), 'basic'];
      } else if (form.client_id) [clientId, secret, method] = [form.client_id, form.client_secret ?? '', 'post'];
      m.tokenRequests.push({ clientId, method, form });
      if (req.method !== 'POST' || req.url !== '/token') return json(404, { error: 'not_found' });
      if (form.grant_type !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
      const client = m.clients.get(clientId);
      if (!client || client.secret !== secret)
        return json(401, { error: 'invalid_client', error_description: `no client ${clientId} with that secret` });
      const token = `tok-${clientId}-${++serial}`;
      valid.set(token, clientId);
      issuedAll.push([token, clientId]);
      json(200, { access_token: token, token_type: 'Bearer', expires_in: client.expiresIn });
    })();
  });

  const mcpServer = http.createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const auth = req.headers.authorization ?? '';
      const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
      if (!valid.has(token)) {
        m.refused++;
        res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
        return;
      }
      m.bearers.push(token);
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      // Stateless: a server and transport per request, as the SDK's stateless examples do.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = buildServer();
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, text ? (JSON.parse(text) as unknown) : undefined);
    })();
  });

  const tokens: LocalServer = await listenLocally(tokenServer);
  const mcp: LocalServer = await listenLocally(mcpServer);
  m.tokenUrl = `${tokens.url}/token`;
  m.tokenPort = tokens.port;
  m.mcpUrl = `${mcp.url}/mcp`;
  m.mcpPort = mcp.port;
  m.close = async () => {
    await tokens.close();
    await mcp.close();
  };
  return m;
}
