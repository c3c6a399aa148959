import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundaryOf, MultipartScanner } from '../../src/relay/surfaces/multipart.js';
import { spooledBody, spoolMultipart } from '../../src/relay/surfaces/spool.js';
import { SpoolBudget } from '../../src/relay/surfaces/spool-budget.js';

/** A multipart body encoded by the platform's own FormData (as clients send it). */
async function encode(
  fields: [string, string | { name: string; bytes: Buffer }][],
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, v] of fields) {
    if (typeof v === 'string') form.append(name, v);
    else form.append(name, new Blob([new Uint8Array(v.bytes)]), v.name);
  }
  const res = new Response(form);
  return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}

const decode = async (body: Buffer, contentType: string) =>
  new Request('http://x/', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: new Uint8Array(body),
  }).formData();

describe('multipart scanner', () => {
  const file = crypto.randomBytes(50_000);
  // A file that contains CRLF and dashes near the delimiter's shape must not end the part early.
  const tricky = Buffer.concat([Buffer.from('\r\n--'), crypto.randomBytes(100), Buffer.from('\r\n-\r\n--x')]);
  const fields: [string, string | { name: string; bytes: Buffer }][] = [
    ['image', { name: 'photo.png', bytes: file }],
    ['prompt', 'a hat, please — ünïcode'],
    ['mask', { name: 'mask.bin', bytes: tricky }],
    ['model', 'dall-e-2'],
  ];

  for (const size of [1, 2, 3, 7, 64, 4096, 1 << 20]) {
    it(`finds every part and its byte range with chunks of ${size} bytes`, async () => {
      const { body, contentType } = await encode(fields);
      const scanner = new MultipartScanner(boundaryOf(contentType)!);
      for (let at = 0; at < body.length; at += size) scanner.push(body.subarray(at, at + size));
      scanner.end();
      expect(scanner.parts.map((p) => [p.name, p.filename, p.value])).toEqual([
        ['image', 'photo.png', undefined],
        ['prompt', undefined, 'a hat, please — ünïcode'],
        ['mask', 'mask.bin', undefined],
        ['model', undefined, 'dall-e-2'],
      ]);
      const [image, , mask] = scanner.parts;
      expect(body.subarray(image!.start, image!.end).equals(file)).toBe(true);
      expect(body.subarray(mask!.start, mask!.end).equals(tricky)).toBe(true);
      expect(image!.size).toBe(file.length);
    });
  }

  it('refuses a body without its closing boundary, and content types without a boundary', async () => {
    const { body, contentType } = await encode([['model', 'x']]);
    const scanner = new MultipartScanner(boundaryOf(contentType)!);
    scanner.push(body.subarray(0, body.length - 10));
    expect(() => scanner.end()).toThrow(/closing boundary/);
    expect(boundaryOf('multipart/form-data')).toBeUndefined();
    expect(boundaryOf('application/json; boundary=x')).toBeUndefined();
    expect(boundaryOf('multipart/form-data; boundary="quoted b"')).toBe('quoted b');
  });

  const unlimited = new SpoolBudget(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);

  it('spools to a file and sends it again with the model field replaced, length exact', async () => {
    const { body, contentType } = await encode(fields);
    const spool = await spoolMultipart(Readable.from([body.subarray(0, 1000), body.subarray(1000)]), contentType, {
      limit: 10_000_000,
      lease: unlimited.lease('u'),
    });
    expect(spool.fields).toEqual({ prompt: 'a hat, please — ünïcode', model: 'dall-e-2' });
    for (let round = 0; round < 2; round++) {
      const { body: stream, length } = spooledBody(spool, { model: 'dall-e-2-mapped-name' });
      const chunks: Buffer[] = [];
      for await (const c of stream) chunks.push(c as Buffer);
      const sent = Buffer.concat(chunks);
      expect(sent.length).toBe(length);
      const form = await decode(sent, contentType);
      expect(form.get('model')).toBe('dall-e-2-mapped-name');
      expect(Buffer.from(await (form.get('image') as Blob).arrayBuffer()).equals(file)).toBe(true);
    }
    spool.dispose();
    await expect(
      spoolMultipart(Readable.from([body]), contentType, { limit: 100, lease: unlimited.lease('u') }),
    ).rejects.toMatchObject({ status: 413 });
  });
});

describe('spool budget', () => {
  it('holds each caller under its cap and everyone under the total; a released lease leaves no entry behind', () => {
    const budget = new SpoolBudget(100, 150);
    const a1 = budget.lease('a');
    const a2 = budget.lease('a');
    const b = budget.lease('b');
    a1.hold(60);
    expect(() => a2.hold(50)).toThrow(expect.objectContaining({ status: 429, code: 'upload_limit_exceeded' }));
    a2.hold(40);
    b.hold(50);
    // 150 held in all: b's next byte is over the total though under its own cap.
    expect(() => b.hold(51)).toThrow(expect.objectContaining({ status: 429, code: 'upload_limit_exceeded' }));
    // One spool larger than a caller may ever hold is a 413, not a retry.
    expect(() => budget.lease('c').hold(101)).toThrow(
      expect.objectContaining({ status: 413, code: 'upload_too_large' }),
    );
    a1.release();
    a1.release();
    expect([budget.spooled('a'), budget.spooled()]).toEqual([40, 90]);
    a2.release();
    b.release();
    expect(budget.spooled()).toBe(0);
    expect((budget as unknown as { byCaller: Map<string, number> }).byCaller.size).toBe(0);
  });
});
