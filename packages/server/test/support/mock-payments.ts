import http from 'node:http';
import { serveMock } from './local-server.js';

/** One call the mock received: its path, headers and body (a Stripe form parsed to its bracketed keys, or JSON). */
export interface PaymentCall {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** Local stand-ins of Stripe's Checkout Session API and Creem's checkout API; nothing reaches the internet. */
export interface MockPayments {
  url: string;
  calls: PaymentCall[];
  /** The next checkout answers this HTTP status with an error body (once). */
  failNext?: number;
  close(): Promise<void>;
}

const send = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_mock' });
  res.end(JSON.stringify(body));
};

export function startMockPayments(): Promise<MockPayments> {
  const mock: MockPayments = { url: '', calls: [], close: async () => undefined };
  let sessions = 0;
  return serveMock(mock, (req, res, raw) => {
    const text = raw.toString('utf8');
    const json = (req.headers['content-type'] ?? '').includes('json');
    const body = json
      ? (JSON.parse(text || '{}') as Record<string, unknown>)
      : Object.fromEntries(new URLSearchParams(text));
    const path = (req.url ?? '').split('?')[0]!;
    mock.calls.push({ path, headers: req.headers, body });
    if (mock.failNext) {
      const status = mock.failNext;
      mock.failNext = undefined;
      return send(res, status, { error: { type: 'api_error', message: 'mock failure' } });
    }
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const id = `cs_test_${++sessions}`;
      return send(res, 200, {
        id,
        object: 'checkout.session',
        client_reference_id: body.client_reference_id,
        mode: body.mode,
        status: 'open',
        payment_status: 'unpaid',
        url: `https://checkout.stripe.com/c/pay/${id}`,
      });
    }
    if (req.method === 'POST' && path === '/v1/checkouts') {
      if (!req.headers['x-api-key']) return send(res, 403, { message: 'no api key' });
      const id = `ch_${++sessions}`;
      return send(res, 200, { id, checkout_url: `https://checkout.creem.io/${id}`, request_id: body.request_id });
    }
    return send(res, 404, { error: { type: 'invalid_request_error', message: 'no such route' } });
  });
}
