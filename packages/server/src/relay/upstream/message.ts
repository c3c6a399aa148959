import type { CachedChannel } from '../../core/routing/channel-cache.js';

/** What a caller is told when the upstream could not be reached (the cause goes to the error log only). */
export const UPSTREAM_FAILED = 'upstream request failed';

const URL_PATTERN = /\b(?:https?|wss?):\/\/[^\s"'<>]+/gi;
const ADDRESS_PATTERN = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b|\[[0-9a-f:.]+\](?::\d{1,5})?/gi;

/** A message without the channel's keys and base URL (kept for administrators: addresses stay). */
export function withoutSecrets(message: string, ch: CachedChannel | undefined): string {
  if (!ch) return message;
  let out = message;
  for (const k of ch.keys) if (k.length >= 6) out = out.split(k).join('***');
  if (ch.baseUrl) out = out.split(ch.baseUrl).join('[upstream]');
  return out;
}

/**
 * An upstream's error message as the caller may see it: the channel's keys, its base URL, any other URL and
 * any IP address (with port) replaced, so neither secrets nor internal addresses leave the gateway.
 */
export function publicUpstreamMessage(message: string, ch: CachedChannel | undefined): string {
  return withoutSecrets(message, ch).replace(URL_PATTERN, '[upstream]').replace(ADDRESS_PATTERN, '[address]');
}

/** A failed attempt as a call keeps it: `message` is the detail for the error log and the channel's record; `shown` is what the caller may read. */
export interface AttemptFailure {
  status: number;
  message: string;
  shown: string;
  channel?: CachedChannel;
}

/** The failure of an attempt on `ch`; status 0 (unreachable) shows no cause. */
export const attemptFailure = (status: number, message: string, ch: CachedChannel): AttemptFailure => ({
  status,
  message: withoutSecrets(message, ch),
  shown: status === 0 ? UPSTREAM_FAILED : publicUpstreamMessage(message, ch),
  channel: ch,
});

/** The failure of a call no channel was tried for. */
export const noChannelFailure = (message: string): AttemptFailure => ({ status: 503, message, shown: message });
