import type { UserPublic } from '@tollway/shared';
import type { CallResult, Client } from './app.js';

export interface IssuedState {
  state: string;
  /** The `oauth_state=…` pair the browser would send back. */
  cookie: string;
}

/** GET /api/oauth/state (with an invite code when given) as `c`: the state and the cookie that keeps it. */
export async function oauthState(c: Client, aff?: string): Promise<IssuedState> {
  const res = await c.call<string>('GET', `/api/oauth/state${aff ? `?aff=${encodeURIComponent(aff)}` : ''}`);
  if (!res.body.success) throw new Error(`state failed: ${res.body.message}`);
  const cookie = [res.raw.headers['set-cookie'] ?? []].flat().find((h) => h.startsWith('oauth_state='));
  if (!cookie) throw new Error('no oauth_state cookie');
  return { state: res.body.data!, cookie: cookie.split(';')[0]! };
}

/**
 * The callback GET /api/oauth/{provider}?code&state as `c` sending `stateCookie` besides its session, like the
 * browser coming back from the provider. A login makes `c` that user (session and New-Api-User).
 */
export async function oauthCallback(
  c: Client,
  provider: string,
  code: string,
  state: string,
  stateCookie = '',
): Promise<CallResult<UserPublic>> {
  const session = c.cookie;
  c.cookie = [session, stateCookie].filter(Boolean).join('; ');
  const q = new URLSearchParams({ code, state });
  const res = await c.call<UserPublic>('GET', `/api/oauth/${provider}?${q}`);
  if (res.body.success && res.body.message !== 'bind') c.userId = res.body.data!.id;
  else c.cookie = session;
  return res;
}

/** The Set-Cookie values of a response. */
export const setCookies = (res: CallResult): string[] => [res.raw.headers['set-cookie'] ?? []].flat();
