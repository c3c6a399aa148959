import type { CustomOAuthProvider, CustomOAuthStatusEntry } from '@tollway/shared';
import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api';
import { rememberedInviteCode } from '../../lib/oauth';
import type { Status } from '../../lib/status';

export const PROVIDERS_KEY = ['custom-oauth-providers'] as const;

/** Root's providers (GET /api/custom-oauth-provider/). */
export function useCustomProviders() {
  return useQuery({
    queryKey: PROVIDERS_KEY,
    queryFn: () => apiGet<CustomOAuthProvider[]>('/api/custom-oauth-provider/'),
  });
}

/** The enabled providers /api/status lists for the login page (present only when there are some). */
export function customProvidersOf(status: Status | undefined): CustomOAuthStatusEntry[] {
  return status?.custom_oauth_providers ?? [];
}

/** Providers the login page and the personal settings start in the browser (authorization code). */
export const browserProviders = (status: Status | undefined) =>
  customProvidersOf(status).filter((p) => p.kind === 'oauth_code' && p.browser_login_supported);

/**
 * Starts a provider's sign-in (or, from the signed-in console, a bind): the server answers the authorization URL
 * with the state, PKCE challenge and nonce it keeps in this browser's state cookie.
 */
export async function startCustomSignIn(slug: string): Promise<void> {
  const aff = rememberedInviteCode();
  const q = aff ? `?aff=${encodeURIComponent(aff)}` : '';
  const { url } = await apiGet<{ url: string }>(`/api/oauth/custom/${encodeURIComponent(slug)}/authorize${q}`);
  window.location.href = url;
}
