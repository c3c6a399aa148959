import { channelTypeById } from '@tollway/shared';
import type { CachedChannel } from '../../core/routing/channel-cache.js';

/** The channel's base URL (trailing slashes removed), or its type's default. */
export const baseUrlOf = (ch: CachedChannel, fallback = 'https://api.openai.com'): string =>
  (ch.baseUrl || channelTypeById.get(ch.type)?.baseUrl || fallback).replace(/\/+$/, '');
