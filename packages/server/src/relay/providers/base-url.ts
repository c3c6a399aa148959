import { channelTypeById, ErrorCode } from '@tollway/shared';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import { coded } from '../../lib/errors.js';

const trimmed = (url: string): string => url.replace(/\/+$/, '');

/** The channel's base URL (trailing slashes removed), or its type's default, or `fallback`. */
export const baseUrlOf = (ch: Pick<CachedChannel, 'type' | 'baseUrl'>, fallback = 'https://api.openai.com'): string =>
  trimmed(ch.baseUrl || channelTypeById.get(ch.type)?.baseUrl || fallback);

/** The base URL given with a channel (or its type's default); refused when neither exists (model lists, balances). */
export function requiredBaseUrl(type: number, baseUrl: string): string {
  const base = baseUrlOf({ type, baseUrl }, '');
  if (!base)
    throw coded(ErrorCode.ChannelBaseUrlMissing, 'this channel has no base_url and its type has no default address');
  return base;
}
