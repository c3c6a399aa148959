import type { OptionsService } from '../../../core/options/service.js';
import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';
import { claudeDefaultMaxTokensOf, claudeSettingsOf, claudeThinkingSuffix } from './settings.js';

export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Anthropic (type 14): `{base}/v1/messages`, key in `x-api-key`, `anthropic-version`. The Claude settings
 * (per-model headers, default max_tokens, `-thinking`) are applied to the body by ./settings.ts. `?beta=true`
 * when the caller asked for it or the channel's `claude_beta_query` setting is on (as new-api does).
 */
export const anthropicAdaptor: UpstreamAdaptor<'anthropic'> = {
  format: 'anthropic',
  target({ channel, key, betaQuery }) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-api-key': key,
      'anthropic-version': ANTHROPIC_VERSION,
    };
    const beta = betaQuery || channel.callSettings.claudeBetaQuery;
    return { url: new URL(`${baseUrlOf(channel)}/v1/messages${beta ? '?beta=true' : ''}`), headers };
  },
};

/** Default max_tokens for a Claude model (possibly `-thinking` suffixed) from claude.default_max_tokens. */
export function claudeDefaultMaxTokens(options: OptionsService, model: string): number {
  const s = claudeSettingsOf(options);
  return claudeDefaultMaxTokensOf(s, model, claudeThinkingSuffix(model, s).model);
}
