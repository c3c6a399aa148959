import type { ServerResponse } from 'node:http';
import type { OptionsService } from '../../core/options/service.js';

/** An SSE comment: every SSE client ignores it, so it is valid in each caller protocol's stream. */
export const PING = ': PING\n\n';

/**
 * The keep-alive interval of streamed answers in ms (general_setting.ping_interval_enabled / _seconds), or 0
 * when it is off. Read once per streamed call.
 */
export function pingIntervalMs(options: OptionsService): number {
  if (!options.bool('general_setting.ping_interval_enabled')) return 0;
  const seconds = options.num('general_setting.ping_interval_seconds');
  return seconds >= 1 ? seconds * 1000 : 0;
}

/** How a stream is kept alive: the interval, and whether the relay is inside an event it has not finished writing. */
export interface KeepAliveOptions {
  intervalMs: number;
  midEvent?: () => boolean;
}

/** One stream's keep-alive timer: `touch` after each write to the client, `stop` when the stream is over. */
export interface KeepAlive {
  touch(): void;
  stop(): void;
}

/**
 * Writes PING to `res` whenever nothing was written for the interval: one unref'd timer, refreshed on each
 * write. It is only ever called between the relay's own writes (each a whole event), so a ping never lands
 * inside an event; it skips a beat while the socket is full (the client is not idle then) or an event is open.
 */
export function startKeepAlive(res: ServerResponse, opts: KeepAliveOptions): KeepAlive {
  const timer = setTimeout(function ping() {
    if (res.destroyed || res.writableEnded) return;
    if (!res.writableNeedDrain && !opts.midEvent?.()) res.write(PING);
    timer.refresh();
  }, opts.intervalMs);
  timer.unref();
  return { touch: () => timer.refresh(), stop: () => clearTimeout(timer) };
}
