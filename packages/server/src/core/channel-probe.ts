import type { CachedChannel } from './routing/channel-cache.js';

export interface ChannelProbeResult {
  ok: boolean;
  /** The upstream's HTTP status; 0 when no answer came. */
  status: number;
  message: string;
  elapsedMs: number;
}

/**
 * Calls a channel's upstream once with a one-token request (the relay implements it; set on AppContext at
 * start-up), so channel tests in modules need no import of the relay. Never returns the key.
 */
export type ChannelProbe = (channel: CachedChannel, model: string) => Promise<ChannelProbeResult>;
