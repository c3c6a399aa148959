import { channelTypeById } from '@tollway/shared';
import { anthropicAdaptor } from './anthropic/adaptor.js';
import { bedrockAdaptorFor } from './aws/adaptor.js';
import { azureAdaptor } from './azure/adaptor.js';
import { cohereAdaptor } from './cohere/adaptor.js';
import { cozeAdaptor } from './coze/adaptor.js';
import { difyAdaptor } from './dify/adaptor.js';
import { geminiAdaptor } from './gemini/adaptor.js';
import { openAIAdaptor } from './openai/adaptor.js';
import { tencentAdaptor } from './tencent/adaptor.js';
import type { UpstreamAdaptor } from './types.js';
import { vertexAdaptorFor } from './vertex/adaptor.js';

/** The adaptor for a channel type; undefined when the type has no adaptor yet (native formats to come). */
export function adaptorFor(type: number, model = ''): UpstreamAdaptor | undefined {
  const info = channelTypeById.get(type);
  if (!info) return undefined;
  // AWS Bedrock and Vertex AI: Claude (and on Vertex Gemini) behind the cloud's own URL and signing.
  if (type === 33) return bedrockAdaptorFor(model);
  if (type === 41) return vertexAdaptorFor(model);
  switch (info.format) {
    case 'openai':
      return openAIAdaptor;
    case 'azure':
      return azureAdaptor;
    case 'anthropic':
      return anthropicAdaptor;
    case 'gemini':
      return geminiAdaptor;
    case 'cohere':
      return cohereAdaptor;
    case 'dify':
      return difyAdaptor;
    case 'coze':
      return cozeAdaptor;
    case 'hunyuan':
      return tencentAdaptor;
    default:
      return undefined;
  }
}
