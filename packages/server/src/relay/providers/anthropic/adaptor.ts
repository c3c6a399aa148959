import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';

export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Anthropic (type 14): `{base}/v1/messages`, key in `x-api-key`, `anthropic-version`, plus per-model header
 * overrides from the claude.model_headers_settings option ({model: {header: [values]}}).
 */
export const anthropicAdaptor: UpstreamAdaptor = {
  format: 'anthropic',
  target({ channel, key, model, options }) {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION };
    const overrides = options.json<Record<string, Record<string, string[]>>>('claude.model_headers_settings')[model] ?? {};
    for (const [name, values] of Object.entries(overrides)) if (values.length) headers[name.toLowerCase()] = values.join(',');
    return { url: new URL(`${baseUrlOf(channel, 'https://api.anthropic.com')}/v1/messages`), headers };
  },
};

/** Default max_tokens for a Claude model from claude.default_max_tokens ({default: n, model: n}). */
export function claudeDefaultMaxTokens(options: import('../../../modules/options/service.js').OptionsService, model: string): number {
  const table = options.json<Record<string, number>>('claude.default_max_tokens');
  return table[model] ?? table.default ?? 8192;
}
