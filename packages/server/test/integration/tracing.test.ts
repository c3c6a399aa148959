import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushTraces } from '../../src/observability/tracing.js';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';

const MODEL = 'traced-model';
const SURFACE = '/v1/chat/completions';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  links?: { traceId: string; spanId: string }[];
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** OTLP/JSON ids are hex; base64 (protobuf-style JSON) is turned to hex too. */
const hex = (id: string | undefined): string =>
  !id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
const attr = (s: ExportedSpan, key: string): unknown => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v && (v.intValue ?? v.stringValue ?? v.boolValue ?? v.doubleValue);
};

/** An in-process OTLP/HTTP JSON receiver: every span posted to /v1/traces. */
async function startReceiver(): Promise<{ url: string; spans: ExportedSpan[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
        for (const rs of doc.resourceSpans)
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              spans.push({ ...s, traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('OpenTelemetry traces of relay calls', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const env: Record<string, string> = {};
  let okChannel = 0;
  let badChannel = 0;
  beforeAll(async () => {
    receiver = await startReceiver();
    env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  });
  afterAll(async () => receiver?.close());
  const gw = useGateway('sqlite', { env, user: 'traced-user', quota: 1_000_000 }, async (g) => {
    await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: 0.002 }) });
    await g.root.call('PUT', '/api/option/', { key: 'RetryTimes', value: '1' });
    badChannel = await addChannel(g.root, {
      name: 'traced-bad',
      key: 'bad-key',
      baseUrl: g.mock.url,
      models: MODEL,
      priority: 10,
    });
    okChannel = await addChannel(g.root, { name: 'traced-ok', key: 'ok-key', baseUrl: g.mock.url, models: MODEL });
    g.mock.behaviors.set('bad-key', { failStatus: 500, failMessage: 'boom' });
  });
  const chat = (headers: Record<string, string> = {}) =>
    fetch(`${gw.base}${SURFACE}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'trace me' }] }),
    });

  it("exports one span per call with auth, channel pick, each attempt and settle as children, in a trace of its own: a caller's traceparent is only a link", async () => {
    const from = gw.mock.requests.length;
    const before = new Set(receiver.spans.map((s) => s.spanId));
    const res = await chat({ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(res.status).toBe(200);
    await res.text();
    const requestId = res.headers.get('x-oneapi-request-id');
    await flushTraces();
    const fresh = receiver.spans.filter((s) => !before.has(s.spanId));
    expect(fresh.filter((s) => s.traceId === CALLER_TRACE)).toEqual([]);
    const root = fresh.find((s) => s.name === `relay ${SURFACE}`)!;
    expect(root).toBeDefined();
    expect(root.parentSpanId).toBe('');
    expect((root.links ?? []).map((l) => [hex(l.traceId), hex(l.spanId)])).toEqual([[CALLER_TRACE, CALLER_SPAN]]);
    expect(attr(root, 'tollway.request_id')).toBe(requestId);
    expect(attr(root, 'http.response.status_code')).toBe(200);
    const children = fresh.filter((s) => s !== root && s.traceId === root.traceId);
    for (const c of children) expect(c.parentSpanId).toBe(root.spanId);
    expect(children.map((c) => c.name).sort()).toEqual([
      'auth',
      'channel pick',
      'channel pick',
      'settle',
      'upstream attempt',
      'upstream attempt',
    ]);
    const attempts = children.filter((c) => c.name === 'upstream attempt');
    expect(attempts.map((a) => [attr(a, 'tollway.channel.id'), attr(a, 'http.response.status_code')])).toEqual([
      [badChannel, 500],
      [okChannel, 200],
    ]);
    expect(
      attr(
        children.find((c) => c.name === 'settle')!,
        'tollway.quota',
      ),
    ).toBe(1000);
    // Each upstream request carried its own attempt's span as the parent, in the gateway's trace.
    const sent = gw.mock.requests.slice(from);
    expect(sent.map((r) => r.headers.traceparent)).toEqual(attempts.map((a) => `00-${root.traceId}-${a.spanId}-01`));
  });

  it.each([
    ['sends none', {}],
    ['sends a malformed one', { traceparent: '00-not-a-trace-01' }],
  ])('starts a trace of its own for a caller that %s', async (_, headers: Record<string, string>) => {
    const before = new Set(receiver.spans.map((s) => s.spanId));
    const res = await chat(headers);
    expect(res.status).toBe(200);
    await res.text();
    await flushTraces();
    const fresh = receiver.spans.filter((s) => !before.has(s.spanId));
    const root = fresh.find((s) => s.name === `relay ${SURFACE}`)!;
    expect(root.parentSpanId).toBe('');
    expect(root.traceId).not.toBe(CALLER_TRACE);
    expect(
      fresh.filter((s) => s.traceId === root.traceId && s.parentSpanId === root.spanId).length,
    ).toBeGreaterThanOrEqual(4);
  });
});

/** Issue 31, hole 15: the operator's sampler decides what is recorded; a caller's sampled flag counts only when the operator trusts callers. */
describe.each([
  ['a ratio-0 sampler', { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, false],
  [
    'callers trusted (OTEL_TRUST_CALLER_SAMPLING=true)',
    {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
      OTEL_TRUST_CALLER_SAMPLING: 'true',
    },
    true,
  ],
])('traces under %s', (_, settings: Record<string, string>, trusted: boolean) => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const env: Record<string, string> = { ...settings };
  beforeAll(async () => {
    receiver = await startReceiver();
    env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  });
  afterAll(async () => receiver?.close());
  const gw = useGateway('sqlite', { env, user: 'sampled-user', quota: 1_000_000 }, async (g) => {
    await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: 0.002 }) });
    await addChannel(g.root, { name: 'sampled-ok', key: 'ok-key', baseUrl: g.mock.url, models: MODEL });
  });
  const chat = (headers: Record<string, string> = {}) =>
    fetch(`${gw.base}${SURFACE}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'sample me?' }] }),
    });

  it(
    trusted
      ? "a caller's sampled traceparent is continued"
      : "a caller's sampled traceparent records and exports nothing",
    async () => {
      const from = gw.mock.requests.length;
      const res = await chat({ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
      expect(res.status).toBe(200);
      await res.text();
      await flushTraces();
      const [sent] = gw.mock.requests.slice(from);
      if (trusted) {
        const root = receiver.spans.find((s) => s.name === `relay ${SURFACE}`)!;
        expect(root.traceId).toBe(CALLER_TRACE);
        expect(root.parentSpanId).toBe(CALLER_SPAN);
        expect(sent!.headers.traceparent).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
      } else {
        expect(receiver.spans).toEqual([]);
        // The upstream is told the call is not sampled, in a trace that is not the caller's.
        expect(sent!.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
        expect(sent!.headers.traceparent).not.toContain(CALLER_TRACE);
      }
    },
  );

  it('a call without traceparent is not sampled at ratio 0', async () => {
    const before = receiver.spans.length;
    const res = await chat();
    expect(res.status).toBe(200);
    await res.text();
    await flushTraces();
    expect(receiver.spans.length).toBe(before);
  });
});
