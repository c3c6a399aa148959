import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** A self-signed certificate for 127.0.0.1 and localhost (P-256, valid until 2126), made for these tests only. */
export const TEST_TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBmjCCAUGgAwIBAgIUZuSncD0O/SZo51vpfv45KlOy4FIwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMjE5NTkyMVoYDzIxMjYxMDI5
MTk1OTIxWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASC/2fPrxpfwcDOJInxHAnWL3hMiV/UU60VdsqFWjSJHdNT+Ghpgk9r
A1+tB8XHZsPd7vT+SEYgZzpNiEjKtP3Uo28wbTAdBgNVHQ4EFgQUhgkMiMVY7GnY
wiydtB5uWqWfSQcwHwYDVR0jBBgwFoAUhgkMiMVY7GnYwiydtB5uWqWfSQcwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDRwAwRAIgGBGSp2U+Ena83qLwK9V0AlJEAGa19G9eAL0YqEPpK7oCIDhg
jgGkhtc2dtgDUW/dugB9jZXUCnyTlS/lfOytiG0Z
-----END CERTIFICATE-----
`;
export const TEST_TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgTllShhu1pjly4MFw
St4yRGR87yaeF7De8pSLUiXhmUahRANCAASC/2fPrxpfwcDOJInxHAnWL3hMiV/U
U60VdsqFWjSJHdNT+Ghpgk9rA1+tB8XHZsPd7vT+SEYgZzpNiEjKtP3U
-----END PRIVATE KEY-----
`;

export interface ReceivedHook {
  headers: Record<string, string | string[] | undefined>;
  /** The exact body bytes as text (what a signature covers). */
  raw: string;
  body: Record<string, unknown>;
}

export interface MockWebhook {
  /** https://127.0.0.1:<port> */
  url: string;
  hooks: ReceivedHook[];
  /** The status the receiver answers (200 unless changed). */
  status: number;
  close(): Promise<void>;
}

/** A real HTTPS webhook receiver on 127.0.0.1 with the test certificate; keeps every POST it gets. */
export async function startMockWebhook(): Promise<MockWebhook> {
  const hooks: ReceivedHook[] = [];
  const mock: Partial<MockWebhook> = { hooks, status: 200 };
  const server = https.createServer({ cert: TEST_TLS_CERT, key: TEST_TLS_KEY }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = {};
      }
      hooks.push({ headers: req.headers, raw, body });
      res.writeHead(mock.status!, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  mock.url = `https://127.0.0.1:${port}`;
  mock.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return mock as MockWebhook;
}
