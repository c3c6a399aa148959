import crypto from 'node:crypto';

/**
 * Volcengine's request signature (HMAC-SHA256, the visual API's "cv" service): the canonical request (method,
 * path, sorted query, signed headers, body hash) hashed into a string to sign, signed with a key derived from the
 * secret key by date, region, service and "request". The answer is the headers to send with the request.
 */

export const VOLC_REGION = 'cn-north-1';
export const VOLC_SERVICE = 'cv';
const ALGORITHM = 'HMAC-SHA256';

const sha256Hex = (data: string | Buffer) => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => crypto.createHmac('sha256', key).update(data).digest();

/** RFC 3986 escaping, as the signer encodes query names and values. */
const escape = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The query of a URL sorted by name (then value), each escaped. */
export function canonicalQuery(url: URL): string {
  return [...url.searchParams.entries()]
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1))
    .map(([k, v]) => `${escape(k)}=${escape(v)}`)
    .join('&');
}

/** `yyyyMMddTHHmmssZ` of a time (UTC). */
export const volcDate = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

export interface VolcSignInput {
  method: string;
  url: URL;
  body: Buffer;
  contentType: string;
  accessKey: string;
  secretKey: string;
  now?: Date;
}

/** The signature of a request (hex), from its parts: shared by the signer and the test mock's check. */
export function volcSignature(
  p: { method: string; path: string; query: string; headers: Record<string, string>; bodyHash: string },
  secretKey: string,
  xDate: string,
): string {
  const names = Object.keys(p.headers).sort();
  const canonical = [
    p.method,
    p.path || '/',
    p.query,
    names.map((n) => `${n}:${p.headers[n]!.trim()}\n`).join(''),
    names.join(';'),
    p.bodyHash,
  ].join('\n');
  const shortDate = xDate.slice(0, 8);
  const scope = `${shortDate}/${VOLC_REGION}/${VOLC_SERVICE}/request`;
  const toSign = [ALGORITHM, xDate, scope, sha256Hex(canonical)].join('\n');
  const kSigning = hmac(hmac(hmac(hmac(secretKey, shortDate), VOLC_REGION), VOLC_SERVICE), 'request');
  return crypto.createHmac('sha256', kSigning).update(toSign).digest('hex');
}

/** The headers of a signed request: X-Date, X-Content-Sha256, Content-Type and Authorization. */
export function volcSign(i: VolcSignInput): Record<string, string> {
  const xDate = volcDate(i.now ?? new Date());
  const bodyHash = sha256Hex(i.body);
  const headers = {
    'content-type': i.contentType,
    host: i.url.host,
    'x-content-sha256': bodyHash,
    'x-date': xDate,
  };
  const signature = volcSignature(
    { method: i.method, path: i.url.pathname, query: canonicalQuery(i.url), headers, bodyHash },
    i.secretKey,
    xDate,
  );
  const scope = `${xDate.slice(0, 8)}/${VOLC_REGION}/${VOLC_SERVICE}/request`;
  const { host: _host, ...sent } = headers;
  return {
    ...sent,
    authorization: `${ALGORITHM} Credential=${i.accessKey}/${scope}, SignedHeaders=${Object.keys(headers).sort().join(';')}, Signature=${signature}`,
  };
}
