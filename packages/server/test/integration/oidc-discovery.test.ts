import http from 'node:http';
import { ErrorCode } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { listenLocally, type LocalServer } from '../support/local-server.js';
import { expectRefused } from '../support/refusal.js';

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
}

const WELL_KNOWN = '/.well-known/openid-configuration';

/**
 * POST /api/oauth/oidc/discovery: root has the server read an OpenID provider's well-known document through the
 * outbound guard (the console cannot reach a newly typed URL under its own CSP).
 */
describe.each(dialects)('OIDC discovery through the outbound guard on %s', (dialect) => {
  const hits: string[] = [];
  let idp: LocalServer;
  beforeAll(async () => {
    idp = await listenLocally(
      http.createServer((req, res) => {
        const url = req.url ?? '';
        hits.push(url);
        const json = (body: unknown) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (url === WELL_KNOWN)
          return json({
            issuer: idp.url,
            authorization_endpoint: `${idp.url}/authorize`,
            token_endpoint: `${idp.url}/token`,
            userinfo_endpoint: `${idp.url}/userinfo`,
            jwks_uri: `${idp.url}/jwks`,
          });
        if (url === '/script') return json({ authorization_endpoint: 'javascript:alert(1)', token_endpoint: 7 });
        if (url === '/moved') return void res.writeHead(302, { location: WELL_KNOWN }).end();
        if (url === '/huge') return json({ authorization_endpoint: `${idp.url}/a`, pad: 'a'.repeat(600 * 1024) });
        if (url === '/html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>login</h1>');
        res.writeHead(404).end('idp-private-detail');
      }),
    );
  });
  const app = useApp(dialect, { admins: ['oidc-admin'], users: ['oidc-user'] });
  afterAll(async () => idp?.close());

  async function option(key: string, value: string) {
    expect((await app.root.call('PUT', '/api/option/', { key, value })).body, key).toMatchObject({ success: true });
  }
  const discover = (path: string, who = app.root) =>
    who.call<Discovery>('POST', '/api/oauth/oidc/discovery', { well_known_url: `${idp.url}${path}` });

  it('is refused to administrators and users, who reach no provider', async () => {
    const before = hits.length;
    for (const who of [app.admins[0]!, app.users[0]!]) expect((await discover(WELL_KNOWN, who)).status).toBe(403);
    expect(hits.length).toBe(before);
  });

  it('refuses a loopback provider while the fetch settings block private addresses, without calling it', async () => {
    const before = hits.length;
    const port = await discover(WELL_KNOWN);
    expectRefused(port, 'port', `port ${idp.port} is not allowed`);
    expect(port.body).toMatchObject({
      code: ErrorCode.OidcDiscoveryFailed,
      params: { reason_code: 'outbound_port_refused' },
    });
    await option('fetch_setting.allowed_ports', JSON.stringify([String(idp.port)]));
    await option('fetch_setting.allow_private_ip', 'false');
    const blocked = await discover(WELL_KNOWN);
    expectRefused(blocked, 'blocked', 'loopback');
    expect(blocked.body).toMatchObject({
      code: ErrorCode.OidcDiscoveryFailed,
      params: { reason_code: ErrorCode.OutboundAddressBlocked },
    });
    expectRefused(
      await app.root.call('POST', '/api/oauth/oidc/discovery', { well_known_url: 'file:///etc/passwd' }),
      'file',
      'only http and https',
    );
    expect(
      (await app.root.call('POST', '/api/oauth/oidc/discovery', { well_known_url: 'file:///etc/passwd' })).body,
    ).toMatchObject({ params: { reason_code: ErrorCode.OidcReasonNotHttp } });
    expect(hits.length).toBe(before);
  });

  it('with private addresses allowed, answers the endpoints of the document', async () => {
    await option('fetch_setting.allow_private_ip', 'true');
    const res = await discover(WELL_KNOWN);
    expect(res.body).toMatchObject({
      success: true,
      data: {
        issuer: idp.url,
        authorization_endpoint: `${idp.url}/authorize`,
        token_endpoint: `${idp.url}/token`,
        userinfo_endpoint: `${idp.url}/userinfo`,
      },
    });
    expect(hits.at(-1)).toBe(WELL_KNOWN);
    // Nothing is saved: the console fills its form, root saves.
    const saved = await app.root.call<{ key: string; value: string }[]>('GET', '/api/option/');
    expect(saved.body.data!.find((o) => o.key === 'oidc.authorization_endpoint')?.value ?? '').toBe('');
  });

  it('refuses what is not a usable document: an error status, a redirect, HTML, a huge body, no http endpoint', async () => {
    // Each reason also as a code the console words in the reader's language, with its values.
    for (const [path, reason, params] of [
      ['/missing', 'HTTP 404', { reason_code: ErrorCode.OidcReasonStatus, status: 404 }],
      ['/moved', 'HTTP 302', { reason_code: ErrorCode.OidcReasonStatus, status: 302 }],
      ['/html', 'not JSON', { reason_code: ErrorCode.OidcReasonNotJson }],
      ['/huge', 'larger than 256 KB', { reason_code: ErrorCode.OidcReasonTooLarge, max_kb: 256 }],
      ['/script', 'names no endpoint', { reason_code: ErrorCode.OidcReasonNoEndpoint }],
    ] as const) {
      const res = await discover(path);
      expectRefused(res, path, reason);
      expect(res.body).toMatchObject({ code: ErrorCode.OidcDiscoveryFailed, params });
      expect(JSON.stringify(res.body), path).not.toContain('idp-private-detail');
    }
  });
});
