import crypto from 'node:crypto';

/** What a TC3-HMAC-SHA256 signature covers (Tencent Cloud API 3.0, POST with a JSON body). */
export interface Tc3Input {
  secretId: string;
  secretKey: string;
  /** Product name, e.g. `hunyuan` (the first label of its API host). */
  service: string;
  host: string;
  contentType: string;
  payload: string;
  /** Unix seconds (the X-TC-Timestamp header). */
  timestamp: number;
}

const sha256Hex = (s: string): string => crypto.createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: crypto.BinaryLike, msg: string): Buffer =>
  crypto.createHmac('sha256', key).update(msg, 'utf8').digest();

/**
 * Tencent Cloud's TC3-HMAC-SHA256 signature, from its public "Signature v3" reference: canonical request
 * (POST, `/`, no query, content-type and host headers, hashed payload) → string to sign (algorithm, timestamp,
 * `date/service/tc3_request`, hashed canonical request) → HMAC chain TC3+key → date → service → tc3_request.
 */
export function tc3Sign(i: Tc3Input): { authorization: string; signature: string; hashedCanonicalRequest: string } {
  const date = new Date(i.timestamp * 1000).toISOString().slice(0, 10);
  const signedHeaders = 'content-type;host';
  const canonicalRequest = [
    'POST',
    '/',
    '',
    `content-type:${i.contentType}\nhost:${i.host}\n`,
    signedHeaders,
    sha256Hex(i.payload),
  ].join('\n');
  const scope = `${date}/${i.service}/tc3_request`;
  const hashedCanonicalRequest = sha256Hex(canonicalRequest);
  const stringToSign = ['TC3-HMAC-SHA256', String(i.timestamp), scope, hashedCanonicalRequest].join('\n');
  const signing = hmac(hmac(hmac(`TC3${i.secretKey}`, date), i.service), 'tc3_request');
  const signature = crypto.createHmac('sha256', signing).update(stringToSign, 'utf8').digest('hex');
  return {
    authorization: `TC3-HMAC-SHA256 Credential=${i.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
    signature,
    hashedCanonicalRequest,
  };
}
