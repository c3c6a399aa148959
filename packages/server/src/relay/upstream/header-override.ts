import type { IncomingHttpHeaders } from 'node:http';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import { API_KEY_PLACEHOLDER, passable, type HeaderOverride } from '../../core/routing/header-override.js';

const LINE_BREAK = /[\r\n\0]/;

/** Sets `name` (lowercase) on `headers`, replacing the same header written in another case. */
function put(headers: Record<string, string>, name: string, value: string): void {
  for (const k in headers) if (k !== name && k.toLowerCase() === name) delete headers[k];
  headers[name] = value;
}

const clientValue = (client: IncomingHttpHeaders, name: string): string => {
  const v = client[name];
  return (Array.isArray(v) ? v.join(', ') : (v ?? '')).trim();
};

function passThrough(headers: Record<string, string>, o: HeaderOverride, client: IncomingHttpHeaders): void {
  for (const name in client) {
    if (!passable(name)) continue;
    if (!o.passAll && !o.passPatterns.some((re) => re.test(name))) continue;
    const value = clientValue(client, name);
    if (value) put(headers, name, value);
  }
}

/**
 * The channel's header_override applied to the headers of one upstream call (rules and placeholders: see
 * core/routing/header-override.ts), last, so it wins over the adaptor's and the caller's headers: a copy of
 * `headers` with the override, or `headers` itself when the channel has none. `client` is the caller's request headers (absent for channel
 * tests: client placeholders and pass-through rules then do nothing). A channel without an override costs one
 * property read.
 */
export function withHeaderOverride(
  headers: Record<string, string>,
  channel: Pick<CachedChannel, 'headerOverride'>,
  key: string,
  client: IncomingHttpHeaders | undefined,
): Record<string, string> {
  const o = channel.headerOverride;
  if (!o) return headers;
  headers = { ...headers };
  if (client && (o.passAll || o.passPatterns.length)) passThrough(headers, o, client);
  for (const e of o.entries) {
    if (e.client !== undefined) {
      const value = client ? clientValue(client, e.client) : '';
      if (value) put(headers, e.name, value);
      continue;
    }
    const value = e.usesKey ? e.template.replaceAll(API_KEY_PLACEHOLDER, key).trim() : e.template;
    // A key that is not one line (a pretty-printed JSON key) cannot be a header value: the entry is left out.
    if (value && !(e.usesKey && LINE_BREAK.test(value))) put(headers, e.name, value);
  }
  return headers;
}
