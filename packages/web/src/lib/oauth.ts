import { apiGet } from './api';
import type { Status } from './status';

export type OAuthProvider = 'github' | 'oidc' | 'linuxdo';
const RETURN_KEY = 'oauth_return_to';

/** The invite code remembered from a ?aff= link (see RegisterPage), or null. */
export const rememberedInviteCode = (): string | null => localStorage.getItem('aff');

/** GET /api/oauth/state (carrying the remembered invite code) gives the state string. */
export async function fetchOAuthState(): Promise<string> {
  const aff = rememberedInviteCode();
  return apiGet<string>(`/api/oauth/state${aff ? `?aff=${encodeURIComponent(aff)}` : ''}`);
}

const callback = (provider: OAuthProvider) => `${window.location.origin}/oauth/${provider}`;

/** The provider's authorize address. */
export function authorizeUrl(provider: OAuthProvider, status: Status, state: string): string {
  const q = new URLSearchParams({ state, redirect_uri: callback(provider) });
  if (provider === 'github') {
    q.set('client_id', status.github_client_id);
    q.set('scope', 'user:email');
    return `https://github.com/login/oauth/authorize?${q}`;
  }
  q.set('response_type', 'code');
  if (provider === 'oidc') {
    q.set('client_id', status.oidc_client_id);
    q.set('scope', 'openid profile email');
    const base = status.oidc_authorization_endpoint;
    return `${base}${base.includes('?') ? '&' : '?'}${q}`;
  }
  q.set('client_id', status.linuxdo_client_id);
  return `https://connect.linux.do/oauth2/authorize?${q}`;
}

/** Remembers where to go after the provider sends the browser back. */
export function rememberReturnTo(returnTo: string | null): void {
  if (returnTo) sessionStorage.setItem(RETURN_KEY, returnTo);
  else sessionStorage.removeItem(RETURN_KEY);
}

export function takeReturnTo(): string | null {
  const v = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  return v;
}

/** Whether any third-party sign-in is enabled in the status payload. */
export function hasOAuth(status: Status | undefined): boolean {
  return (
    !!status &&
    (status.github_oauth ||
      status.oidc_enabled ||
      status.linuxdo_oauth ||
      status.wechat_login ||
      status.telegram_oauth ||
      !!status.custom_oauth_providers?.some(
        (p) => (p.kind === 'oauth_code' || p.kind === 'trusted_header') && p.browser_login_supported,
      ))
  );
}
