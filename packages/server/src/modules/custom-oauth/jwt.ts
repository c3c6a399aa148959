// Verifying the JSON Web Tokens of custom providers (OIDC ID tokens, external JWT sign-in) with jose: the
// signature by the provider's JWKS or root's PEM public key, then iss, aud, exp/nbf and (ID tokens) nonce.
import { ErrorCode } from '@tollway/shared';
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  importSPKI,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyOptions,
} from 'jose';
import { BoundedMap } from '../../lib/bounded-map.js';
import { coded } from '../../lib/errors.js';
import { callExternal } from '../../lib/external-call.js';

/** Asymmetric algorithms only: never "none", never a shared-secret HMAC a public key could be mistaken for. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'];
/** How long a fetched JWKS is used before it is read again. */
const JWKS_TTL_MS = 5 * 60_000;
/** A token whose key is not in the held JWKS refetches it, at most this often (key rotation). */
const JWKS_REFETCH_MIN_MS = 30_000;
/** JWKS documents held (one per provider URL). */
const MAX_JWKS = 64;
/** Clock skew allowed on exp and nbf. */
const CLOCK_TOLERANCE_S = 60;
/** Longest token looked at. */
export const MAX_JWT_CHARS = 16_384;

interface HeldJwks {
  keys: ReturnType<typeof createLocalJWKSet>;
  fetchedAt: number;
}
const jwksCache = new BoundedMap<string, HeldJwks>({ maxEntries: MAX_JWKS, ttlMs: JWKS_TTL_MS });

/** What a token is checked against. */
export interface JwtExpectations {
  jwksUrl?: string;
  publicKey?: string;
  issuer?: string;
  audience?: string;
  /** For ID tokens: the nonce the sign-in sent ('' when it sent none). */
  nonce?: string;
  /** The ErrorCode of a refusal (ID token or external JWT). */
  code: ErrorCode;
}

const refusal = (code: ErrorCode, reason: string) =>
  coded(code, `${code === ErrorCode.CustomOAuthIdTokenInvalid ? 'the ID token' : 'the token'} is refused: ${reason}`, {
    reason,
  });

async function fetchJwks(url: string, code: ErrorCode): Promise<HeldJwks> {
  const answer = await callExternal('the identity provider', url, { method: 'GET' });
  const body = answer.body as JSONWebKeySet | undefined;
  if (answer.status !== 200 || !body || !Array.isArray(body.keys))
    throw refusal(code, `the provider's key set could not be read (HTTP ${answer.status})`);
  const held = { keys: createLocalJWKSet(body), fetchedAt: Date.now() };
  jwksCache.set(url, held);
  return held;
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'it has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `its ${err.claim} claim is not the expected one`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'no key of the provider matches it';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'its algorithm is not accepted';
  return 'it is malformed';
}

/** Verifies `token`; returns its claims or throws the coded refusal naming why. */
export async function verifyJwt(token: string, want: JwtExpectations): Promise<JWTPayload> {
  if (!token || token.length > MAX_JWT_CHARS) throw refusal(want.code, 'it is missing or too long');
  const options: JWTVerifyOptions = {
    algorithms: JWT_ALGORITHMS,
    clockTolerance: CLOCK_TOLERANCE_S,
    ...(want.issuer ? { issuer: want.issuer } : {}),
    ...(want.audience ? { audience: want.audience } : {}),
  };
  let payload: JWTPayload;
  try {
    if (want.publicKey?.trim()) {
      const { alg } = decodeProtectedHeader(token);
      if (!alg || !JWT_ALGORITHMS.includes(alg)) throw new joseErrors.JOSEAlgNotAllowed('algorithm not allowed');
      payload = (await jwtVerify(token, await importSPKI(want.publicKey.trim(), alg), options)).payload;
    } else if (want.jwksUrl) {
      let held = jwksCache.get(want.jwksUrl) ?? (await fetchJwks(want.jwksUrl, want.code));
      try {
        payload = (await jwtVerify(token, held.keys, options)).payload;
      } catch (err) {
        if (!(err instanceof joseErrors.JWKSNoMatchingKey) || Date.now() - held.fetchedAt < JWKS_REFETCH_MIN_MS)
          throw err;
        held = await fetchJwks(want.jwksUrl, want.code);
        payload = (await jwtVerify(token, held.keys, options)).payload;
      }
    } else throw refusal(want.code, 'the provider has no key to check it with (jwks_url or public_key)');
  } catch (err) {
    if (err instanceof Error && 'detail' in err) throw err;
    throw refusal(want.code, reasonOf(err));
  }
  if (want.nonce !== undefined && want.nonce !== '' && payload.nonce !== want.nonce)
    throw coded(
      ErrorCode.CustomOAuthNonceMismatch,
      'the ID token was not issued for this sign-in (nonce): start again from the login page',
    );
  return payload;
}
