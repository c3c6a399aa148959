import crypto from 'node:crypto';
import http from 'node:http';
import { listenLocally } from './local-server.js';

/** One form a verifier received. */
export interface SiteverifyCall {
  secret: string;
  response: string;
  remoteip: string;
  contentType: string;
}

export interface MockSiteverify {
  /** The siteverify URL (http://127.0.0.1:<port>/turnstile/v0/siteverify). */
  verifyUrl: string;
  /** Every form posted to it, oldest first. */
  calls: SiteverifyCall[];
  /** A fresh token the mock accepts once, as a solved widget would hand out. */
  issue(): string;
  /** `answer`: Cloudflare's JSON; `garbage`: an HTML 500 page; `drop`: the connection is cut without an answer. */
  mode: 'answer' | 'garbage' | 'drop';
  close(): Promise<void>;
}

/**
 * A stand-in for Cloudflare Turnstile's siteverify: POST form secret, response, remoteip. Answers
 * {success:true} for a token it issued (once; again is timeout-or-duplicate), else {success:false} with
 * Cloudflare's error codes; a secret other than `secret` is invalid-input-secret.
 */
export async function startMockSiteverify(secret: string): Promise<MockSiteverify> {
  const issued = new Set<string>();
  const used = new Set<string>();
  const calls: SiteverifyCall[] = [];
  const answer = (res: http.ServerResponse, body: unknown) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/turnstile/v0/siteverify')
        return void res.writeHead(404).end('not found');
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const call = {
        secret: form.get('secret') ?? '',
        response: form.get('response') ?? '',
        remoteip: form.get('remoteip') ?? '',
        contentType: req.headers['content-type'] ?? '',
      };
      calls.push(call);
      if (mock.mode === 'drop') return void req.socket.destroy();
      if (mock.mode === 'garbage')
        return void res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body>Internal error</body></html>');
      if (!call.secret) return answer(res, { success: false, 'error-codes': ['missing-input-secret'] });
      if (call.secret !== secret) return answer(res, { success: false, 'error-codes': ['invalid-input-secret'] });
      if (!call.response) return answer(res, { success: false, 'error-codes': ['missing-input-response'] });
      if (used.has(call.response)) return answer(res, { success: false, 'error-codes': ['timeout-or-duplicate'] });
      if (!issued.delete(call.response))
        return answer(res, { success: false, 'error-codes': ['invalid-input-response'] });
      used.add(call.response);
      return answer(res, {
        success: true,
        challenge_ts: new Date().toISOString(),
        hostname: 'localhost',
        'error-codes': [],
        action: '',
        cdata: '',
      });
    });
  });
  const local = await listenLocally(server);
  const mock: MockSiteverify = {
    verifyUrl: `${local.url}/turnstile/v0/siteverify`,
    calls,
    mode: 'answer',
    issue() {
      const token = `0.${crypto.randomBytes(24).toString('base64url')}`;
      issued.add(token);
      return token;
    },
    close: () => local.close(),
  };
  return mock;
}
