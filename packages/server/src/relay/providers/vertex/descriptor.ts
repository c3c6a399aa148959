import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { anthropicMessages } from '../anthropic/convert.js';
import { geminiGenerate } from '../gemini/convert.js';
import { vertexAdaptorFor } from './adaptor.js';
import { checkServiceAccountKey } from './jwt.js';

/** Google Vertex AI: Gemini and Claude models under a project; the key is a service-account JSON key. */
export const vertexProvider = defineProvider({
  name: 'vertex',
  types: [ChannelType.VertexAi],
  formats: { gemini: geminiGenerate, anthropic: anthropicMessages },
  adaptor: vertexAdaptorFor,
  checkKey: checkServiceAccountKey,
  jsonKeys: true,
  /** `other` is a region, or a JSON map of model → region. */
  checkOther(other) {
    const v = other.trim();
    if (!v.startsWith('{')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('the region must be plain text or a valid JSON object');
  },
});
