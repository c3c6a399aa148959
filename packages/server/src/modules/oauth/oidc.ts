import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { ExternalAccount, ProviderSignInDeps } from './account.js';
import { callExternal } from '../../lib/external-call.js';
import { accessTokenOf, text, userObjectOf } from './provider-http.js';

/** The message for an OIDC provider whose configuration is missing (the endpoints come from the well-known document). */
export const OIDC_CONFIG_MISSING = 'failed to get OIDC configuration, check network and the Well-Known URL';

/**
 * OpenID Connect: the code is exchanged at oidc.token_endpoint (authorization_code, redirect_uri
 * {origin}/oauth/oidc), then oidc.user_info_endpoint gives sub, preferred_username, name and email.
 */
export async function oidcAccount(deps: ProviderSignInDeps, code: string, origin: string): Promise<ExternalAccount> {
  const clientId = deps.options.get('oidc.client_id');
  const secret = deps.options.get('oidc.client_secret');
  const tokenEndpoint = deps.options.get('oidc.token_endpoint').trim();
  const userInfoEndpoint = deps.options.get('oidc.user_info_endpoint').trim();
  if (!clientId || !secret)
    throw coded(
      ErrorCode.OAuthNotConfigured,
      'OIDC sign-in is enabled but oidc.client_id or oidc.client_secret is not set; contact the administrator',
      {
        provider: 'OIDC',
        settings: 'oidc.client_id / oidc.client_secret',
      },
    );
  if (!/^https?:\/\//i.test(tokenEndpoint) || !/^https?:\/\//i.test(userInfoEndpoint)) {
    throw coded(
      ErrorCode.OidcConfigMissing,
      `${OIDC_CONFIG_MISSING} (the administrator has not set the token and user info endpoints)`,
    );
  }
  const tokenAnswer = await callExternal(
    'the OIDC provider',
    tokenEndpoint,
    {
      method: 'POST',
      form: {
        grant_type: 'authorization_code',
        code,
        redirect_uri: `${origin}/oauth/oidc`,
        client_id: clientId,
        client_secret: secret,
      },
    },
    [secret],
  );
  const token = accessTokenOf('OIDC', tokenAnswer);
  const userAnswer = await callExternal(
    'the OIDC provider',
    userInfoEndpoint,
    { method: 'GET', headers: { authorization: `Bearer ${token}` } },
    [token],
  );
  const user = userObjectOf('OIDC', userAnswer);
  const id = text(user.sub);
  if (!id)
    throw coded(ErrorCode.OAuthUserNoId, 'the OIDC provider answered user info without a sub', { provider: 'OIDC' });
  return { id, displayName: text(user.name) || text(user.preferred_username), email: text(user.email) };
}
