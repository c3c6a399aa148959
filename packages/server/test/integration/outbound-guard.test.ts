import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, getGlobalDispatcher, request, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserClient, type Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter, setQuota } from '../support/gateway.js';
import { listenLocally, type LocalServer } from '../support/local-server.js';
import { startMockUpstream } from '../support/mock-upstream.js';
import { startMockWebhook, TEST_TLS_CERT, TEST_TLS_KEY, type MockWebhook } from '../support/mock-webhook.js';
import { expectRefused } from '../support/refusal.js';

// Each call costs $0.10 = 50,000 quota; the warning threshold is 200,000.
const THRESHOLD = 200_000;
const SECRET_PAGE = '<html><body><h1>Intranet admin</h1><p>db-password=hunter2</p></body></html>';

describe.each(dialects)('outbound request guard on %s', (dialect) => {
  let hook: MockWebhook;
  let redirector: https.Server;
  let redirectorUrl: string;
  let intranet: LocalServer;
  let previousDispatcher: Dispatcher;
  beforeAll(async () => {
    hook = await startMockWebhook();
    // A receiver that sends every webhook on to the real receiver with a redirect.
    redirector = https.createServer({ cert: TEST_TLS_CERT, key: TEST_TLS_KEY }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(307, { location: `${hook.url}/redirected` }).end());
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    redirectorUrl = `https://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    // A web page that is not a model API, answering every path.
    intranet = await listenLocally(
      http.createServer((req, res) => {
        req.resume();
        res
          .writeHead(req.url?.includes('ok-page') ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' })
          .end(SECRET_PAGE);
      }),
    );
    // Webhook URLs must be https: the server's undici calls trust the receivers' test certificate.
    previousDispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: TEST_TLS_CERT } }));
  });
  const gw = useGateway(dialect, { mock: () => startMockUpstream({ record: false }) }, async (g) => {
    await option(g.root, 'ModelPrice', JSON.stringify({ 'fixed-model': 0.1 }));
    await addChannel(g.root, { name: 'fixed', key: 'ok-key', baseUrl: g.mock.url, models: 'fixed-model' });
  });
  afterAll(async () => {
    setGlobalDispatcher(previousDispatcher);
    await hook?.close();
    await intranet?.close();
    if (redirector) await new Promise<void>((resolve) => redirector.close(() => resolve()));
  });

  async function option(root: Client, key: string, value: string) {
    const res = await root.call('PUT', '/api/option/', { key, value });
    expect(res.body, `${key}=${value}`).toMatchObject({ success: true });
  }
  /** Sets fetch settings for one test and puts back the defaults after it. */
  async function withSettings(settings: Record<string, string>, body: () => Promise<void>) {
    for (const [k, v] of Object.entries(settings)) await option(gw.root, `fetch_setting.${k}`, v);
    try {
      await body();
    } finally {
      const defaults: Record<string, string> = {
        allow_private_ip: 'false',
        allowed_ports: '["80","443","8080","8443"]',
        domain_filter_mode: 'false',
        domain_list: '[]',
        ip_filter_mode: 'false',
        ip_list: '[]',
        enable_ssrf_protection: 'true',
      };
      for (const k of Object.keys(settings)) await option(gw.root, `fetch_setting.${k}`, defaults[k]!);
    }
  }
  const saveHook = (c: Client, url: string) =>
    c.call('PUT', '/api/user/setting', {
      notify_type: 'webhook',
      quota_warning_threshold: THRESHOLD,
      webhook_url: url,
    });
  const chat = async (key: string) => {
    const res = await request(`${gw.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fixed-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.body.dump();
    return res.statusCode;
  };
  /** Charges one call that takes the user from 210,000 below the threshold and waits for the warning. */
  const crossThreshold = async (u: { id: number; key: string }) => {
    await setQuota(gw.root, u.id, 210_000);
    expect(await chat(u.key)).toBe(200);
    await drainWriter(gw.t);
    await gw.t.runtime.ctx.relay.quotaWarnings.idle();
  };
  const hooksFor = (userId: number) => hook.hooks.filter((h) => h.body.user_id === userId);
  let userCount = 0;
  const newUser = async () => {
    const client = await createUserClient(gw.t.app, gw.root, `guard-user-${++userCount}`);
    const { key } = await addToken(gw.t, client.userId!, {});
    return { client, id: client.userId!, key };
  };

  it('refuses loopback webhooks at save time (address, spellings, localhost) with the reason', async () => {
    const u = await newUser();
    const port = new URL(hook.url).port;
    // The English reason, and its rule as a code with values (the console words it in the viewer's language).
    const cases: [string, string, Record<string, unknown>][] = [
      [
        `https://127.0.0.1/hook`,
        '127.0.0.1 is a loopback address',
        { reason_code: 'outbound_address_blocked', target: '127.0.0.1' },
      ],
      [
        `https://2130706433/hook`,
        '127.0.0.1 is a loopback address',
        { reason_code: 'outbound_address_blocked', target: '127.0.0.1' },
      ],
      [`https://[::ffff:127.0.0.1]/hook`, 'is a loopback address', { reason_code: 'outbound_address_blocked' }],
      [
        `https://169.254.169.254/latest/meta-data`,
        '169.254.169.254 is a link-local address',
        { reason_code: 'outbound_address_blocked', target: '169.254.169.254' },
      ],
      [
        `https://10.0.0.8/hook`,
        'is a private address',
        { reason_code: 'outbound_address_blocked', target: '10.0.0.8' },
      ],
      [
        `https://localhost/hook`,
        'localhost resolves to an address that is loopback',
        { reason_code: 'outbound_resolved_blocked', target: 'localhost' },
      ],
      [
        `https://127.0.0.1:${port}/hook`,
        `port ${port} is not allowed`,
        { reason_code: 'outbound_port_refused', port: Number(port) },
      ],
    ];
    for (const [url, reason, params] of cases) {
      const res = await saveHook(u.client, url);
      expect(res.body.success, url).toBe(false);
      expect(res.body.message, url).toContain('webhook_url is not allowed: ');
      expect(res.body.message, url).toContain(reason);
      expect((res.body as { code?: string }).code, url).toBe('webhook_url_blocked');
      expect((res.body as { params?: unknown }).params, url).toMatchObject({
        reason: expect.stringContaining(reason),
        ...params,
      });
    }
    // A public name that cannot be resolved here is kept (it is checked again on every call).
    expect((await saveHook(u.client, 'https://hooks.example.com/tollway')).body.success).toBe(true);
  });

  it('a stored webhook that became blocked is not called; allow_private_ip lets it through', async () => {
    const u = await newUser();
    const port = new URL(hook.url).port;
    await withSettings({ allow_private_ip: 'true', allowed_ports: '[]' }, async () => {
      // Through the pinned address: TLS checks the certificate for localhost, the receiver sees Host: localhost.
      expect((await saveHook(u.client, `https://localhost:${port}/private`)).body.success).toBe(true);
      await crossThreshold(u);
      expect(hooksFor(u.id)).toHaveLength(1);
      expect(hooksFor(u.id)[0]!.headers.host).toBe(`localhost:${port}`);
    });
    // Defaults again: the same stored URL is refused at send time, and the receiver gets nothing.
    await crossThreshold(u);
    expect(hooksFor(u.id)).toHaveLength(1);
    await withSettings({ allow_private_ip: 'true' }, async () => {
      // Private allowed but the receiver's port is not in the default list.
      await crossThreshold(u);
      expect(hooksFor(u.id)).toHaveLength(1);
    });
    await withSettings({ allow_private_ip: 'true', allowed_ports: JSON.stringify(['443', port]) }, async () => {
      await crossThreshold(u);
      expect(hooksFor(u.id)).toHaveLength(2);
    });
    // Protection off: nothing is checked.
    await withSettings({ enable_ssrf_protection: 'false' }, async () => {
      await crossThreshold(u);
      expect(hooksFor(u.id)).toHaveLength(3);
    });
  });

  it('domain deny-list and allow-list', async () => {
    const u = await newUser();
    await withSettings(
      { allow_private_ip: 'true', allowed_ports: '[]', domain_list: '["localhost", "*.blocked.example"]' },
      async () => {
        expect((await saveHook(u.client, `https://localhost:${new URL(hook.url).port}/x`)).body.message).toContain(
          'localhost is in the blocked domain list',
        );
        expect((await saveHook(u.client, 'https://a.blocked.example/x')).body.message).toContain(
          'a.blocked.example is in the blocked domain list',
        );
        expect((await saveHook(u.client, 'https://fine.example/x')).body.success).toBe(true);
      },
    );
    await withSettings({ domain_filter_mode: 'true', domain_list: '["hooks.example.com"]' }, async () => {
      expect((await saveHook(u.client, 'https://other.example.com/x')).body.message).toContain(
        'other.example.com is not in the allowed domain list',
      );
      expect((await saveHook(u.client, 'https://hooks.example.com/x')).body.success).toBe(true);
    });
  });

  it('IP deny-list and allow-list, literal and resolved', async () => {
    const u = await newUser();
    const port = new URL(hook.url).port;
    await withSettings({ allow_private_ip: 'true', allowed_ports: '[]', ip_list: '["127.0.0.0/8"]' }, async () => {
      expect((await saveHook(u.client, `${hook.url}/x`)).body.message).toContain('127.0.0.1 is in the blocked IP list');
      expect((await saveHook(u.client, `https://localhost:${port}/x`)).body.message).toContain(
        'localhost resolves to an address that is in the blocked IP list',
      );
    });
    await withSettings(
      { allow_private_ip: 'true', allowed_ports: '[]', ip_filter_mode: 'true', ip_list: '["10.0.0.0/8"]' },
      async () => {
        expect((await saveHook(u.client, `${hook.url}/x`)).body.message).toContain(
          '127.0.0.1 is not in the allowed IP list',
        );
      },
    );
    await withSettings(
      { allow_private_ip: 'true', allowed_ports: '[]', ip_filter_mode: 'true', ip_list: '["127.0.0.1"]' },
      async () => {
        expect((await saveHook(u.client, `${hook.url}/x`)).body.success).toBe(true);
      },
    );
  });

  it('a webhook receiver that redirects is not followed (not to a private address, not anywhere)', async () => {
    const u = await newUser();
    const before = hook.hooks.length;
    await withSettings({ allow_private_ip: 'true', allowed_ports: '[]' }, async () => {
      expect((await saveHook(u.client, `${redirectorUrl}/hook`)).body.success).toBe(true);
      await crossThreshold(u);
    });
    expect(hook.hooks.length).toBe(before);
  });

  it('refuses invalid fetch settings', async () => {
    const bad: [string, string, string][] = [
      ['ip_list', '["10.0.0.0/33"]', 'IP address or a CIDR block'],
      ['ip_list', '["localhost"]', 'IP address or a CIDR block'],
      ['allowed_ports', '["0"]', 'port (1-65535)'],
      ['allowed_ports', '["9000-8000"]', 'port (1-65535)'],
      ['domain_list', '["https://example.com"]', 'domain such as example.com'],
      ['allow_private_ip', 'yes', 'true or false'],
    ];
    for (const [key, value, message] of bad) {
      const res = await gw.root.call('PUT', '/api/option/', { key: `fetch_setting.${key}`, value });
      expectRefused(res, key);
      expect(res.body.message, key).toContain(message);
    }
    const list = await gw.root.call<{ key: string; value: string }[]>('GET', '/api/option/');
    const values = Object.fromEntries(
      list.body.data!.filter((o) => o.key.startsWith('fetch_setting.')).map((o) => [o.key, o.value]),
    );
    expect(values).toEqual({
      'fetch_setting.enable_ssrf_protection': 'true',
      'fetch_setting.allow_private_ip': 'false',
      'fetch_setting.domain_filter_mode': 'false',
      'fetch_setting.ip_filter_mode': 'false',
      'fetch_setting.domain_list': '[]',
      'fetch_setting.ip_list': '[]',
      'fetch_setting.allowed_ports': '["80","443","8080","8443"]',
      'fetch_setting.apply_ip_filter_for_domain': 'true',
    });
  });

  it('fetch_models and channel tests against a page that is not a model API never echo it', async () => {
    const models = await gw.root.call('POST', '/api/channel/fetch_models', {
      base_url: intranet.url,
      type: 1,
      key: 'sk-any',
    });
    expect(models.body.success).toBe(false);
    expect(models.body.message).toBe('upstream answered HTTP 404 (text/html)');
    const okPage = await gw.root.call('POST', '/api/channel/fetch_models', {
      base_url: `${intranet.url}/ok-page`,
      type: 1,
      key: 'sk-any',
    });
    expect(okPage.body.message).toBe('upstream answered HTTP 200 (text/html), which is not JSON');
    const created = await gw.root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'intranet', type: 1, key: 'sk-any', models: 'gpt-4o', base_url: intranet.url },
    });
    const id = created.body.data!.ids[0]!;
    const byId = await gw.root.call('GET', `/api/channel/fetch_models/${id}`);
    expect(byId.body.message).toBe('upstream answered HTTP 404 (text/html)');
    const tested = await gw.root.call('GET', `/api/channel/test/${id}`);
    const body = tested.body as unknown as { success: boolean; message: string };
    expect(body.success).toBe(false);
    expect(body.message).toBe('HTTP 404 (text/html)');
    for (const m of [models.body.message, okPage.body.message, byId.body.message, body.message]) {
      expect(m).not.toContain('Intranet');
      expect(m).not.toContain('hunter2');
    }
  });
});
