import crypto from 'node:crypto';

/**
 * AWS Signature Version 4 (header form), pure: canonical request → string to sign → HMAC-SHA256 signing-key
 * chain (date, region, service, "aws4_request") → `Authorization` header. Written from AWS's SigV4 reference.
 */

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignInput {
  method: string;
  url: URL;
  /** Headers to send (and sign); `host` is taken from the URL. */
  headers: Record<string, string>;
  body: string | Buffer;
  region: string;
  service: string;
  credentials: AwsCredentials;
  now: Date;
  /** Also send and sign `x-amz-content-sha256` (S3 always does). */
  contentSha256?: boolean;
}

export interface Signed {
  /** Headers to add to the request: authorization, x-amz-date, and where asked x-amz-content-sha256 / x-amz-security-token. */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

export const sha256Hex = (data: string | Buffer): string => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer =>
  crypto.createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 wants it: everything but A–Z a–z 0–9 - _ . ~ percent-encoded, upper-case hex. */
export const uriEncode = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `20150830T123600Z` and `20150830` for a date. */
export function amzDate(now: Date): { dateTime: string; date: string } {
  const dateTime = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return { dateTime, date: dateTime.slice(0, 8) };
}

/** The derived signing key: HMAC chain of "AWS4"+secret over date, region, service and "aws4_request". */
export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/**
 * The canonical URI: the path as sent, each segment URI-encoded again (every service but S3 encodes twice;
 * S3 encodes the decoded segment once).
 */
export function canonicalUri(pathname: string, service: string): string {
  if (!pathname || pathname === '/') return '/';
  return pathname
    .split('/')
    .map((seg) => uriEncode(service === 's3' ? decodeURIComponent(seg) : seg))
    .join('/');
}

/** Query parameters URI-encoded and sorted by name, then value. */
export function canonicalQuery(search: string): string {
  const q = search.startsWith('?') ? search.slice(1) : search;
  if (!q) return '';
  return q
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
      const value = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1));
      return [uriEncode(name), uriEncode(value)] as const;
    })
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([n, v]) => `${n}=${v}`)
    .join('&');
}

/** Lower-cased names sorted, values trimmed with inner runs of spaces collapsed. */
export function canonicalHeaders(headers: Record<string, string>): { text: string; signed: string } {
  const entries = Object.entries(headers)
    .map(([k, v]) => [k.toLowerCase(), String(v).trim().replace(/\s+/g, ' ')] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { text: entries.map(([k, v]) => `${k}:${v}\n`).join(''), signed: entries.map(([k]) => k).join(';') };
}

export function canonicalRequest(
  method: string,
  url: URL,
  service: string,
  headers: Record<string, string>,
  payloadHash: string,
): { text: string; signedHeaders: string } {
  const h = canonicalHeaders(headers);
  const text = [
    method.toUpperCase(),
    canonicalUri(url.pathname, service),
    canonicalQuery(url.search),
    h.text,
    h.signed,
    payloadHash,
  ].join('\n');
  return { text, signedHeaders: h.signed };
}

export const credentialScope = (date: string, region: string, service: string): string =>
  `${date}/${region}/${service}/aws4_request`;

export const stringToSign = (dateTime: string, scope: string, canonical: string): string =>
  [ALGORITHM, dateTime, scope, sha256Hex(canonical)].join('\n');

/** Signs one request; returns the headers to add and the intermediate strings (for tests and verifiers). */
export function signRequest(input: SignInput): Signed {
  const { dateTime, date } = amzDate(input.now);
  const payloadHash = sha256Hex(input.body);
  const added: Record<string, string> = { 'x-amz-date': dateTime };
  if (input.contentSha256) added['x-amz-content-sha256'] = payloadHash;
  if (input.credentials.sessionToken) added['x-amz-security-token'] = input.credentials.sessionToken;
  const toSign: Record<string, string> = { host: input.url.host, ...lowerKeys(input.headers), ...added };
  const canonical = canonicalRequest(input.method, input.url, input.service, toSign, payloadHash);
  const scope = credentialScope(date, input.region, input.service);
  const sts = stringToSign(dateTime, scope, canonical.text);
  const signature = crypto
    .createHmac('sha256', signingKey(input.credentials.secretAccessKey, date, input.region, input.service))
    .update(sts, 'utf8')
    .digest('hex');
  added.authorization = `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${canonical.signedHeaders}, Signature=${signature}`;
  return { headers: added, canonicalRequest: canonical.text, stringToSign: sts, signature };
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v;
  return out;
}
