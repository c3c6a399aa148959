import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { ExternalAccount, ProviderSignInDeps } from './account.js';
import { callExternal } from '../../lib/external-call.js';
import { accessTokenOf, text, userObjectOf } from './provider-http.js';

/**
 * LinuxDO Connect (LINUXDO_BASE_URL): the code is exchanged at {base}/oauth2/token with the client as HTTP Basic,
 * then {base}/api/user gives id, username, name, trust_level, active and silenced. Accounts below
 * LinuxDOMinimumTrustLevel, inactive or silenced are refused.
 */
export async function linuxDoAccount(deps: ProviderSignInDeps, code: string, origin: string): Promise<ExternalAccount> {
  const clientId = deps.options.get('LinuxDOClientId');
  const secret = deps.options.get('LinuxDOClientSecret');
  if (!clientId || !secret)
    throw coded(
      ErrorCode.OAuthNotConfigured,
      'LinuxDO sign-in is enabled but LinuxDOClientId or LinuxDOClientSecret is not set; contact the administrator',
      {
        provider: 'LinuxDO',
        settings: 'LinuxDOClientId / LinuxDOClientSecret',
      },
    );
  const basic = Buffer.from(`${clientId}:${secret}`).toString('base64');
  const base = deps.config.linuxDoBaseUrl;
  const tokenAnswer = await callExternal(
    'LinuxDO',
    `${base}/oauth2/token`,
    {
      method: 'POST',
      headers: { authorization: `Basic ${basic}` },
      form: { grant_type: 'authorization_code', code, redirect_uri: `${origin}/oauth/linuxdo` },
    },
    [secret, basic],
  );
  const token = accessTokenOf('LinuxDO', tokenAnswer);
  const user = userObjectOf(
    'LinuxDO',
    await callExternal(
      'LinuxDO',
      `${base}/api/user`,
      { method: 'GET', headers: { authorization: `Bearer ${token}` } },
      [token],
    ),
  );
  const id = text(user.id);
  if (!id) throw coded(ErrorCode.OAuthUserNoId, 'LinuxDO answered a user without an id', { provider: 'LinuxDO' });
  if (user.active === false) throw coded(ErrorCode.LinuxDoInactive, 'this LinuxDO account is not active');
  if (user.silenced === true) throw coded(ErrorCode.LinuxDoSilenced, 'this LinuxDO account is silenced');
  const minimum = deps.options.num('LinuxDOMinimumTrustLevel');
  const level = typeof user.trust_level === 'number' ? user.trust_level : 0;
  if (level < minimum)
    throw coded(
      ErrorCode.LinuxDoTrustLevel,
      `this LinuxDO account's trust level is ${level}; the administrator requires at least ${minimum}`,
      { level, minimum },
    );
  return { id, displayName: text(user.name) || text(user.username), email: '' };
}
