import crypto from 'node:crypto';

/**
 * RS256 JSON Web Signatures (RFC 7515, compact serialization) and the OAuth 2.0 JWT-bearer assertion a Google
 * service account signs to obtain an access token.
 */

export const base64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

/** `BASE64URL(header) . BASE64URL(payload) . BASE64URL(RSASSA-PKCS1-v1_5 SHA-256 signature)` over the exact bytes given. */
export function jwsCompactRs256(header: string, payload: string, privateKey: crypto.KeyObject | string): string {
  const input = `${base64url(header)}.${base64url(payload)}`;
  const signature = crypto.sign('sha256', Buffer.from(input, 'ascii'), privateKey);
  return `${input}.${base64url(signature)}`;
}

/** The fields of a service-account JSON key that signing and routing need. */
export interface ServiceAccount {
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
  projectId: string;
  tokenUri: string;
}

export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Parses a service-account key (JSON text); throws a readable message for anything missing. */
export function parseServiceAccount(text: string): ServiceAccount {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error('Vertex AI key must be a service account JSON key');
  }
  const str = (k: string) => (typeof j[k] === 'string' ? (j[k] as string) : '');
  const missing = ['client_email', 'private_key', 'project_id'].filter((k) => !str(k));
  if (missing.length) throw new Error(`Vertex AI service account key lacks ${missing.join(', ')}`);
  return {
    clientEmail: str('client_email'),
    privateKey: str('private_key'),
    privateKeyId: str('private_key_id') || undefined,
    projectId: str('project_id'),
    tokenUri: str('token_uri') || GOOGLE_TOKEN_URI,
  };
}

/**
 * A service-account key as it is saved on a channel: the fields parseServiceAccount needs, and a private key that
 * Node can load as RSA (the JWT is signed RS256). Throws a readable message otherwise.
 */
export function checkServiceAccountKey(text: string): void {
  const sa = parseServiceAccount(text);
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey(sa.privateKey);
  } catch {
    throw new Error('Vertex AI service account private_key is not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'rsa')
    throw new Error(`Vertex AI service account private_key must be an RSA key, not ${key.asymmetricKeyType}`);
}

/** The signed assertion: {alg: RS256, typ: JWT} with iss, scope, aud = token URI, iat and exp = iat + 1 hour. */
export function serviceAccountAssertion(sa: ServiceAccount, nowSeconds: number): string {
  const header = JSON.stringify({ alg: 'RS256', typ: 'JWT', ...(sa.privateKeyId ? { kid: sa.privateKeyId } : {}) });
  const claims = JSON.stringify({
    iss: sa.clientEmail,
    scope: CLOUD_PLATFORM_SCOPE,
    aud: sa.tokenUri,
    iat: nowSeconds,
    exp: nowSeconds + 3600,
  });
  return jwsCompactRs256(header, claims, sa.privateKey);
}
