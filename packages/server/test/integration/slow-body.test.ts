import { describe, expect, it } from 'vitest';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { trickleUpload } from '../support/raw-socket.js';

const MODEL = 'slow-body-model';

/**
 * A minimum request-body data rate (HTTP_BODY_MIN_RATE bytes/s after HTTP_BODY_MIN_RATE_GRACE seconds, as
 * Apache's mod_reqtimeout's body=20,MinRate=500): a body trickled slower than that is cut off long before
 * HTTP_REQUEST_TIMEOUT, on every route; an upload that keeps above the rate is served.
 */
describe('a trickled request body under the default settings', () => {
  const gw = useGateway('sqlite', { user: 'slow-default-user', quota: 5_000_000 });
  const port = () => Number(new URL(gw.base).port);

  it(
    '1 byte every 2 s is cut off after the 20-s grace, not held for the 300-s request timeout',
    { timeout: 60_000 },
    async () => {
      const head = `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${gw.key}\r\ncontent-type: application/json\r\n`;
      const r = await trickleUpload(port(), head, '{'.repeat(10_000), 1, 2_000, 45_000);
      expect(r.closed).toBe(true);
      expect(r.ms).toBeGreaterThanOrEqual(19_000);
      expect(r.ms).toBeLessThan(26_000);
      expect(r.response).toMatch(/^HTTP\/1\.1 408/);
    },
  );
});

describe('a trickled request body with HTTP_BODY_MIN_RATE=500 and a 2-s grace', () => {
  const gw = useGateway(
    'sqlite',
    { user: 'slow-rate-user', quota: 5_000_000, env: { HTTP_BODY_MIN_RATE: '500', HTTP_BODY_MIN_RATE_GRACE: '2' } },
    async (g) => {
      await g.root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 0.5 }) });
      await addChannel(g.root, { name: 'slow-body', key: 'slow-body-key', baseUrl: g.mock.url, models: MODEL });
    },
  );
  const port = () => Number(new URL(gw.base).port);
  const relayHead = () =>
    `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${gw.key}\r\ncontent-type: application/json\r\n`;
  const consoleHead = 'POST /api/user/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n';

  it.each([
    ['the relay hot path', relayHead],
    ['a console route', () => consoleHead],
  ])('cuts a 1-byte-every-2-s body on %s within a few seconds, with 408', async (_, head) => {
    const r = await trickleUpload(port(), head(), '{'.repeat(10_000), 1, 2_000, 15_000);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(1_900);
    expect(r.ms).toBeLessThan(5_000);
    expect(r.response).toMatch(/^HTTP\/1\.1 408/);
  });

  it('serves an upload that keeps above the rate for longer than the grace (about 1 KB/s for 6 s)', async () => {
    const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'slow but steady' }] });
    const padded = body.slice(0, -1) + ' '.repeat(6_000) + '}';
    const r = await trickleUpload(port(), relayHead(), padded, 100, 100, 20_000);
    expect(r.response).toMatch(/^HTTP\/1\.1 200/);
    expect(r.ms).toBeGreaterThanOrEqual(5_500);
  });
});
