import { ChannelType } from '@tollway/shared';
import type { UpstreamQuery } from '../../../core/providers.js';
import { requiredBaseUrl } from '../base-url.js';
import { defineProvider } from '../descriptor.js';
import { getJson } from '../upstream-json.js';
import { geminiAdaptor } from './adaptor.js';
import { geminiGenerate } from './convert.js';

/** Pages of a model list read at most (1000 models each). */
const MAX_MODEL_PAGES = 20;

export const geminiProvider = defineProvider({
  name: 'gemini',
  types: [ChannelType.Gemini],
  formats: { gemini: geminiGenerate },
  adaptor: geminiAdaptor,
  /** `GET {base}/v1beta/models`, page by page, `models/` prefix removed. */
  async listModels({ type, baseUrl, key }: UpstreamQuery, log) {
    const base = requiredBaseUrl(type, baseUrl);
    const ids = new Set<string>();
    let pageToken = '';
    for (let page = 0; page < MAX_MODEL_PAGES; page++) {
      const url = `${base}/v1beta/models?pageSize=1000&key=${encodeURIComponent(key)}${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`;
      const body = await getJson<{ models?: { name?: string }[]; nextPageToken?: string }>(url, {}, key, log);
      for (const m of body.models ?? []) if (m.name) ids.add(m.name.replace(/^models\//, ''));
      if (!body.nextPageToken) break;
      pageToken = body.nextPageToken;
    }
    return [...ids].sort();
  },
});
