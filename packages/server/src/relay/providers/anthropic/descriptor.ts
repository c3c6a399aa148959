import { ChannelType } from '@tollway/shared';
import type { UpstreamQuery } from '../../../core/providers.js';
import { requiredBaseUrl } from '../base-url.js';
import { defineProvider } from '../descriptor.js';
import { modelListIds } from '../openai/models.js';
import { getJson } from '../upstream-json.js';
import { ANTHROPIC_VERSION, anthropicAdaptor } from './adaptor.js';
import { anthropicMessages } from './convert.js';

export const anthropicProvider = defineProvider({
  name: 'anthropic',
  types: [ChannelType.Anthropic],
  formats: { anthropic: anthropicMessages },
  adaptor: anthropicAdaptor,
  /** `GET {base}/v1/models` with Anthropic's key header and version. */
  async listModels({ type, baseUrl, key }: UpstreamQuery, log) {
    const headers = { 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION };
    return modelListIds(await getJson(`${requiredBaseUrl(type, baseUrl)}/v1/models`, headers, key, log));
  },
});
