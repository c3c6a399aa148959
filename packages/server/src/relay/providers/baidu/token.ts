import { request } from 'undici';
import { CredentialCache } from '../credential-cache.js';
import { UpstreamPrepareError } from '../prepare.js';
import type { ErnieTokenAnswer } from './wire.js';

/** Tokens are renewed this long before they expire (Baidu's last 30 days). */
const REFRESH_MARGIN_MS = 60 * 60_000;
/** At most this many keys' tokens are kept. */
const MAX_CACHED = 512;
const TIMEOUT_MS = 20_000;
/** Most of the token endpoint's answer read. */
const MAX_ANSWER = 64 * 1024;
/** When Baidu names no lifetime. */
const DEFAULT_LIFETIME_S = 24 * 3600;

/** `client_id|client_secret` (the console's API Key and Secret Key). */
function clientOf(key: string): { id: string; secret: string } {
  const [id = '', secret = '', extra] = key.split('|').map((s) => s.trim());
  if (!id || !secret || extra !== undefined)
    throw new UpstreamPrepareError('Baidu ERNIE keys are written APIKey|SecretKey', 401);
  return { id, secret };
}

/**
 * Baidu access tokens: a key's client id and secret exchanged at `{origin}/oauth/2.0/token` (grant type
 * client_credentials), cached per key until shortly before they expire; callers of one key share one exchange.
 */
export class ErnieTokens {
  private readonly cache: CredentialCache<string>;

  constructor(private readonly now: () => number = Date.now) {
    this.cache = new CredentialCache(MAX_CACHED, REFRESH_MARGIN_MS, now);
  }

  async token(origin: string, key: string): Promise<string> {
    const client = clientOf(key);
    return this.cache.obtain(`${origin} ${key}`, () => this.exchange(origin, client));
  }

  /** Forgets a key's token (the chat API refused it). */
  drop(origin: string, key: string): void {
    this.cache.drop(`${origin} ${key}`);
  }

  get size(): number {
    return this.cache.size;
  }

  private async exchange(origin: string, c: { id: string; secret: string }) {
    const query = new URLSearchParams({ grant_type: 'client_credentials', client_id: c.id, client_secret: c.secret });
    let status: number;
    let text = '';
    try {
      const res = await request(`${origin}/oauth/2.0/token?${query.toString()}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      status = res.statusCode;
      for await (const chunk of res.body) {
        if (text.length < MAX_ANSWER) text += (chunk as Buffer).toString('utf8');
      }
    } catch (err) {
      throw new UpstreamPrepareError(`Baidu token endpoint unreachable: ${(err as Error).message}`, 502);
    }
    let j: ErnieTokenAnswer = {};
    try {
      j = JSON.parse(text) as ErnieTokenAnswer;
    } catch {
      // reported below
    }
    if (typeof j.access_token !== 'string' || !j.access_token) {
      // Only the endpoint's own error fields are repeated: an answer that is not its JSON is never echoed.
      const why = j.error ? `${j.error}${j.error_description ? `: ${j.error_description}` : ''}` : `HTTP ${status}`;
      throw new UpstreamPrepareError(
        `Baidu access token exchange failed: ${why}`,
        j.error || (status >= 400 && status < 500) ? 401 : 502,
      );
    }
    return { value: j.access_token, expiresAt: this.now() + (Number(j.expires_in) || DEFAULT_LIFETIME_S) * 1000 };
  }
}

/** The process-wide tokens the ERNIE adaptor uses. */
export const ernieTokens = new ErnieTokens();
