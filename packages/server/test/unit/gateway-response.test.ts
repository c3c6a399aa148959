import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayResponseClass, presetHeader } from '../../src/lib/gateway-response.js';

const FIXED = { 'x-frame-options': 'DENY', 'content-security-policy': "default-src 'none'" };

/** Each path answers in one of the ways the server's code does. */
const ANSWERS: Record<string, (res: http.ServerResponse) => void> = {
  // writeHead with the answer's own headers, one of them a preset name.
  '/own': (res) => {
    presetHeader(res, 'x-request-id', 'r1');
    res.writeHead(200, { 'content-type': 'text/plain', 'content-security-policy': 'page' });
    res.end('own');
  },
  // A status text before the headers.
  '/reason': (res) => {
    res.writeHead(201, 'Made', { 'content-type': 'text/plain' });
    res.end();
  },
  // No writeHead: Node writes the head when the body is ended.
  '/implicit': (res) => {
    presetHeader(res, 'x-request-id', 'r2');
    res.statusCode = 404;
    res.end('gone');
  },
  // setHeader for a preset name wins over the preset; the answer's own wins over both.
  '/set': (res) => {
    res.setHeader('X-Frame-Options', 'SAMEORIGIN');
    res.setHeader('x-other', 'set');
    presetHeader(res, 'x-request-id', 'r3');
    res.writeHead(200, { 'x-other': 'own' });
    res.end();
  },
  // A raw array of names and values.
  '/array': (res) => {
    res.writeHead(200, ['content-type', 'text/plain', 'x-array', '1']);
    res.end();
  },
  // An invalid name or value is refused where it is preset, as setHeader refuses it; the answer still goes out.
  '/invalid': (res) => {
    const codes = [];
    for (const [name, value] of [
      ['x-bad', 'a\nb'],
      ['bad name', 'v'],
    ])
      try {
        presetHeader(res, name!, value!);
      } catch (err) {
        codes.push((err as { code?: string }).code);
      }
    res.statusCode = 500;
    res.end(codes.join(' '));
  },
};

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer({ ServerResponse: gatewayResponseClass(FIXED) }, (req, res) =>
    ANSWERS[req.url ?? '']!(res),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const get = (path: string) => fetch(base + path);

describe('GatewayResponse: preset headers go out in the answer’s one head', () => {
  it("every answer carries the preset; the answer's own header of the same name wins", async () => {
    const res = await get('/own');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toBe('page');
    expect(res.headers.get('x-request-id')).toBe('r1');
    expect(await res.text()).toBe('own');
  });

  it('a status text, an implicit head and a raw array of headers all carry the preset', async () => {
    const reason = await get('/reason');
    expect([reason.status, reason.statusText]).toEqual([201, 'Made']);
    expect(reason.headers.get('content-security-policy')).toBe("default-src 'none'");
    const implicit = await get('/implicit');
    expect(implicit.status).toBe(404);
    expect(implicit.headers.get('x-frame-options')).toBe('DENY');
    expect(implicit.headers.get('x-request-id')).toBe('r2');
    const array = await get('/array');
    expect(array.headers.get('x-array')).toBe('1');
    expect(array.headers.get('x-frame-options')).toBe('DENY');
  });

  it('a header set with setHeader wins over the preset, and the answer’s own over both', async () => {
    const res = await get('/set');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-other')).toBe('own');
    expect(res.headers.get('x-request-id')).toBe('r3');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'");
  });

  it('a preset name or value Node would refuse is refused where it is set; the answer still goes out', async () => {
    const res = await get('/invalid');
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('ERR_INVALID_CHAR ERR_INVALID_HTTP_TOKEN');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(() => gatewayResponseClass({ 'x-fixed': 'a\rb' })).toThrow(/Invalid character/);
  });

  it('presets of one response do not leak into the next (the class default is shared)', async () => {
    await get('/own');
    const res = await get('/reason');
    expect(res.headers.get('x-request-id')).toBeNull();
  });
});
