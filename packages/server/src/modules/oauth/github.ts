import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { ExternalAccount, ProviderSignInDeps } from './account.js';
import { callExternal } from '../../lib/external-call.js';
import { accessTokenOf, text, userObjectOf } from './provider-http.js';

/**
 * GitHub (or GitHub Enterprise through GITHUB_BASE_URL and GITHUB_API_URL): the code is exchanged at
 * {base}/login/oauth/access_token, then {api}/user gives id, login, name and email.
 */
export async function githubAccount(deps: ProviderSignInDeps, code: string): Promise<ExternalAccount> {
  const clientId = deps.options.get('GitHubClientId');
  const secret = deps.options.get('GitHubClientSecret');
  if (!clientId || !secret)
    throw coded(
      ErrorCode.OAuthNotConfigured,
      'GitHub sign-in is enabled but GitHubClientId or GitHubClientSecret is not set; contact the administrator',
      {
        provider: 'GitHub',
        settings: 'GitHubClientId / GitHubClientSecret',
      },
    );
  const tokenAnswer = await callExternal(
    'GitHub',
    `${deps.config.githubBaseUrl}/login/oauth/access_token`,
    { method: 'POST', json: { client_id: clientId, client_secret: secret, code } },
    [secret],
  );
  const token = accessTokenOf('GitHub', tokenAnswer);
  const userAnswer = await callExternal(
    'GitHub',
    `${deps.config.githubApiUrl}/user`,
    { method: 'GET', headers: { authorization: `Bearer ${token}`, 'user-agent': 'Tollway' } },
    [token],
  );
  const user = userObjectOf('GitHub', userAnswer);
  const id = text(user.id);
  if (!id) throw coded(ErrorCode.OAuthUserNoId, 'GitHub answered a user without an id', { provider: 'GitHub' });
  return { id, displayName: text(user.name) || text(user.login), email: text(user.email) };
}
