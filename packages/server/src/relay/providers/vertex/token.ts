import { request } from 'undici';
import { UpstreamPrepareError } from '../prepare.js';
import { JWT_BEARER_GRANT, parseServiceAccount, serviceAccountAssertion, type ServiceAccount } from './jwt.js';

/** Tokens are renewed this long before they expire. */
const REFRESH_MARGIN_MS = 5 * 60_000;
/** At most this many keys' tokens are kept (oldest dropped first). */
const MAX_CACHED = 512;

interface Cached {
  token: string;
  expiresAt: number;
}

const accounts = new Map<string, ServiceAccount | Error>();

/** The parsed service account of a key (memoised per key text, at most MAX_CACHED kept); throws a 401 error for bad keys. */
export function serviceAccountOf(keyText: string): ServiceAccount {
  let a = accounts.get(keyText);
  if (!a) {
    try {
      a = parseServiceAccount(keyText);
    } catch (err) {
      a = err as Error;
    }
    accounts.set(keyText, a);
    if (accounts.size > MAX_CACHED) accounts.delete(accounts.keys().next().value!);
  }
  if (a instanceof Error) throw new UpstreamPrepareError(a.message, 401);
  return a;
}

/**
 * OAuth access tokens for Vertex AI service-account keys: a signed JWT assertion exchanged at the key's
 * token_uri (grant type jwt-bearer), cached per key until shortly before expiry; concurrent callers of one key
 * share one exchange.
 */
export class VertexTokenCache {
  private tokens = new Map<string, Cached>();
  private pending = new Map<string, Promise<Cached>>();

  constructor(private now: () => number = Date.now) {}

  async token(keyText: string): Promise<{ token: string; account: ServiceAccount }> {
    const account = serviceAccountOf(keyText);
    const hit = this.tokens.get(keyText);
    if (hit && hit.expiresAt - REFRESH_MARGIN_MS > this.now()) return { token: hit.token, account };
    let wait = this.pending.get(keyText);
    if (!wait) {
      wait = this.exchange(account).finally(() => this.pending.delete(keyText));
      this.pending.set(keyText, wait);
    }
    const fresh = await wait;
    this.tokens.delete(keyText);
    this.tokens.set(keyText, fresh);
    if (this.tokens.size > MAX_CACHED) this.tokens.delete(this.tokens.keys().next().value!);
    return { token: fresh.token, account };
  }

  private async exchange(sa: ServiceAccount): Promise<Cached> {
    let assertion: string;
    try {
      assertion = serviceAccountAssertion(sa, Math.floor(this.now() / 1000));
    } catch (err) {
      throw new UpstreamPrepareError(
        `Vertex AI service account private key is unusable: ${(err as Error).message}`,
        401,
      );
    }
    const body = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString();
    let status: number;
    let text: string;
    try {
      const res = await request(sa.tokenUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      throw new UpstreamPrepareError(`Vertex AI token endpoint unreachable: ${(err as Error).message}`, 502);
    }
    let j: { access_token?: string; expires_in?: number; error?: string; error_description?: string } = {};
    try {
      j = JSON.parse(text) as typeof j;
    } catch {
      // reported below
    }
    if (status >= 400 || typeof j.access_token !== 'string') {
      // An answer that is not the token endpoint's JSON is never echoed (it may be any page of any host).
      const why = j.error_description ?? j.error ?? `HTTP ${status}`;
      throw new UpstreamPrepareError(
        `Vertex AI token exchange failed: ${why}`,
        status >= 400 && status < 500 ? 401 : 502,
      );
    }
    return { token: j.access_token, expiresAt: this.now() + (Number(j.expires_in) || 3600) * 1000 };
  }
}

/** The process-wide cache the Vertex adaptor uses. */
export const vertexTokens = new VertexTokenCache();
