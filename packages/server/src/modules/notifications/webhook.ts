import crypto from 'node:crypto';
import { request, type Dispatcher } from 'undici';

/** Longest wait for a webhook receiver, connection to last byte. */
const TIMEOUT_MS = 10_000;
export const SIGNATURE_HEADER = 'x-tollway-signature';

/** `sha256=<hex>` of the HMAC-SHA256 of the exact body with the user's webhook secret. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * POSTs `payload` as JSON to `url` through `dispatcher` (the outbound guard), signed with `secret` when there
 * is one. Redirects are not followed. Throws when the guard refuses the URL, the receiver cannot be reached
 * or it answers other than 2xx (the message names the status, never the secret).
 */
export async function postWebhook(
  url: string,
  payload: unknown,
  secret: string,
  dispatcher: Dispatcher,
): Promise<void> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Tollway-Webhook' };
  if (secret) headers[SIGNATURE_HEADER] = webhookSignature(secret, body);
  const res = await request(url, {
    method: 'POST',
    dispatcher,
    headers,
    body,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  await res.body.dump();
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`webhook receiver answered HTTP ${res.statusCode}`);
}
