import { describe, expect, it } from 'vitest';
import type { Client } from '../support/app.js';
import { useApp } from '../support/fixture.js';
import { listen } from '../support/gateway.js';
import { partialUpload } from '../support/raw-socket.js';

/** Far more than the first bytes sent: the server must answer long before such an upload could finish. */
const UPLOAD_BYTES = 20 * 1024 * 1024;
/** How long the test waits for an answer; the upload never completes. */
const WAIT_MS = 3000;

/**
 * A management route that needs a caller decides who calls from the headers before it reads the body: an anonymous
 * or signed-out caller (or a wrong New-Api-User) is refused while a large upload has barely started, and the
 * connection ends with the answer instead of taking the rest of the upload.
 */
describe('/api routes check the caller before the body', () => {
  let base: string, root: Client, user: Client;
  useApp('sqlite', { users: ['first-user'] }, async (a) => {
    base = await listen(a.t);
    root = a.root;
    user = a.users[0]!;
  });
  const port = () => Number(new URL(base).port);
  const upload = (head: string) =>
    partialUpload(port(), `${head}content-type: application/json\r\n`, UPLOAD_BYTES, '{"key":"', WAIT_MS);

  it('refuses an anonymous, forged or mismatched caller at once and closes the connection', async () => {
    const heads = {
      anonymous: 'PUT /api/option/ HTTP/1.1\r\nhost: x\r\n',
      'anonymous user route': 'PUT /api/user/self HTTP/1.1\r\nhost: x\r\n',
      'New-Api-User of someone else': `POST /api/channel/ HTTP/1.1\r\nhost: x\r\ncookie: ${root.cookie}\r\nnew-api-user: ${user.userId}\r\n`,
      'no New-Api-User': `PUT /api/user/self HTTP/1.1\r\nhost: x\r\ncookie: ${user.cookie}\r\n`,
      'a forged session cookie': `PUT /api/user/self HTTP/1.1\r\nhost: x\r\ncookie: session=forged\r\nnew-api-user: 1\r\n`,
    };
    for (const [what, head] of Object.entries(heads)) {
      const r = await upload(head);
      expect(r.response, what).toMatch(/^HTTP\/1\.1 401/);
      expect(r.response.toLowerCase(), what).toContain('connection: close');
      expect(r.closed, what).toBe(true);
      expect(r.ms, what).toBeLessThan(WAIT_MS);
    }
  });

  it('a signed-in caller below the route level is still refused with 403 after its body, and a right one is served', async () => {
    const refused = await user.call('PUT', '/api/option/', { key: 'SystemName', value: 'not yours' });
    expect(refused.body).toMatchObject({ success: false });
    const saved = await root.call('PUT', '/api/option/', { key: 'SystemName', value: 'Caller First' });
    expect(saved.body).toMatchObject({ success: true });
    expect((await user.call('GET', '/api/status')).body.data).toMatchObject({ system_name: 'Caller First' });
  });
});
