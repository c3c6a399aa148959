import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VertexTokenCache } from '../../src/relay/providers/vertex/token.js';

/** The OAuth token cache against a token endpoint that counts exchanges and can refuse them. */
describe('Vertex AI access-token cache', () => {
  let server: http.Server;
  let tokenUri = '';
  let exchanges = 0;
  let refuse = false;
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyText = (project: string) =>
    JSON.stringify({
      type: 'service_account',
      project_id: project,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: `a@${project}.iam.gserviceaccount.com`,
      token_uri: tokenUri,
    });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        exchanges++;
        const [h, p, s] = new URLSearchParams(raw).get('assertion')!.split('.');
        const valid = crypto.verify('sha256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s!, 'base64url'));
        // A slow answer, so concurrent callers overlap.
        setTimeout(() => {
          if (refuse || !valid)
            res
              .writeHead(400, { 'content-type': 'application/json' })
              .end(JSON.stringify({ error: 'invalid_grant', error_description: 'account disabled' }));
          else
            res
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ access_token: `tok-${exchanges}`, expires_in: 3600 }));
        }, 30);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    tokenUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('shares one exchange between concurrent callers and reuses the token until 5 minutes before expiry', async () => {
    let now = 1_700_000_000_000;
    const cache = new VertexTokenCache(() => now);
    exchanges = 0;
    const key = keyText('p1');
    const tokens = await Promise.all(Array.from({ length: 5 }, () => cache.token(key)));
    expect(new Set(tokens.map((t) => t.token))).toEqual(new Set(['tok-1']));
    expect(tokens[0]!.account.projectId).toBe('p1');
    expect(exchanges).toBe(1);
    now += 54 * 60_000;
    expect((await cache.token(key)).token).toBe('tok-1');
    now += 2 * 60_000; // 56 minutes in: within the 5-minute margin
    expect((await cache.token(key)).token).toBe('tok-2');
    expect(exchanges).toBe(2);
    // Another key has its own token.
    expect((await cache.token(keyText('p2'))).token).toBe('tok-3');
  });

  it('fails with status 401 and the endpoint reason when the exchange is refused, and for keys that are not service accounts', async () => {
    const cache = new VertexTokenCache();
    refuse = true;
    await expect(cache.token(keyText('p3'))).rejects.toMatchObject({
      status: 401,
      message: 'Vertex AI token exchange failed: account disabled',
    });
    refuse = false;
    await expect(cache.token('{"project_id":"x"}')).rejects.toMatchObject({
      status: 401,
      message: 'Vertex AI service account key lacks client_email, private_key',
    });
    await expect(
      cache.token(
        JSON.stringify({ client_email: 'a', project_id: 'x', private_key: 'not a pem', token_uri: tokenUri }),
      ),
    ).rejects.toMatchObject({ status: 401 });
  });
});
