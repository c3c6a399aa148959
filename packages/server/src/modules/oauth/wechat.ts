import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import type { ExternalAccount } from './account.js';
import { callExternal } from '../../lib/external-call.js';
import { providerError } from './provider-http.js';

/**
 * QR-code login through a WeChat server: {WeChatServerAddress}/api/wechat/user?code= with the header
 * Authorization: {WeChatServerToken} answers {success, message, data: openid}.
 */
export async function wechatAccount(ctx: AppContext, code: string): Promise<ExternalAccount> {
  const address = ctx.options.get('WeChatServerAddress').trim().replace(/\/+$/, '');
  const token = ctx.options.get('WeChatServerToken');
  if (!/^https?:\/\//i.test(address)) throw new ApiError('WeChat login is enabled but WeChatServerAddress is not set; contact the administrator');
  if (!code.trim()) throw new ApiError('verification code is required');
  const answer = await callExternal(
    'the WeChat server',
    `${address}/api/wechat/user?code=${encodeURIComponent(code.trim())}`,
    { method: 'GET', headers: { authorization: token } },
    [token],
  );
  const body = answer.body as { success?: unknown; message?: unknown; data?: unknown } | undefined;
  if (answer.status >= 400 || !body || typeof body !== 'object') throw new ApiError(`the WeChat server failed (${providerError(answer)})`, 400);
  if (body.success !== true) {
    const reason = typeof body.message === 'string' && body.message ? body.message : 'the code is wrong or expired';
    throw new ApiError(`WeChat verification failed: ${reason}`, 400);
  }
  const openid = typeof body.data === 'string' ? body.data : '';
  if (!openid) throw new ApiError('WeChat verification failed: the code is wrong or expired', 400);
  return { id: openid, displayName: 'WeChat User', email: '' };
}
