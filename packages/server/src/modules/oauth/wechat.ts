import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { ExternalAccount, ProviderSignInDeps } from './account.js';
import { callExternal } from '../../lib/external-call.js';
import { providerError } from './provider-http.js';

/**
 * QR-code login through a WeChat server: {WeChatServerAddress}/api/wechat/user?code= with the header
 * Authorization: {WeChatServerToken} answers {success, message, data: openid}.
 */
export async function wechatAccount(deps: ProviderSignInDeps, code: string): Promise<ExternalAccount> {
  const address = deps.options.get('WeChatServerAddress').trim().replace(/\/+$/, '');
  const token = deps.options.get('WeChatServerToken');
  if (!/^https?:\/\//i.test(address))
    throw coded(
      ErrorCode.OAuthNotConfigured,
      'WeChat login is enabled but WeChatServerAddress is not set; contact the administrator',
      {
        provider: 'WeChat',
        settings: 'WeChatServerAddress',
      },
    );
  if (!code.trim()) throw coded(ErrorCode.VerificationCodeRequired, 'verification code is required');
  const answer = await callExternal(
    'the WeChat server',
    `${address}/api/wechat/user?code=${encodeURIComponent(code.trim())}`,
    { method: 'GET', headers: { authorization: token } },
    [token],
  );
  const body = answer.body as { success?: unknown; message?: unknown; data?: unknown } | undefined;
  if (answer.status >= 400 || !body || typeof body !== 'object')
    throw coded(ErrorCode.WeChatServerFailed, `the WeChat server failed (${providerError(answer)})`, {
      reason: providerError(answer),
    });
  if (body.success !== true) {
    const reason = typeof body.message === 'string' && body.message ? body.message : 'the code is wrong or expired';
    throw coded(ErrorCode.WeChatVerifyFailed, `WeChat verification failed: ${reason}`, { reason });
  }
  const openid = typeof body.data === 'string' ? body.data : '';
  if (!openid) throw coded(ErrorCode.VerificationCodeWrong, 'WeChat verification failed: the code is wrong or expired');
  return { id: openid, displayName: 'WeChat User', email: '' };
}
