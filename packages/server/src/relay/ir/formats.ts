import { anthropicMessages } from './anthropic.js';
import { cohereChat } from './cohere.js';
import { cozeChat } from './coze.js';
import { difyChat } from './dify.js';
import { geminiGenerate } from './gemini.js';
import { hunyuanChat } from './hunyuan.js';
import { openAIChat } from './openai-chat.js';
import { openAIResponses } from './responses.js';
import type { UpstreamFormat } from './types.js';

/** The upstream side of the wire formats by name (upstream adaptors name the format they speak). */
const formats: Record<string, UpstreamFormat> = {
  openai: openAIChat,
  anthropic: anthropicMessages,
  gemini: geminiGenerate,
  responses: openAIResponses,
  cohere: cohereChat,
  dify: difyChat,
  coze: cozeChat,
  hunyuan: hunyuanChat,
};

export function registerFormat(f: UpstreamFormat): void {
  formats[f.name] = f;
}

export function formatFor(name: string): UpstreamFormat {
  const f = formats[name];
  if (!f) throw new Error(`no wire format ${name}`);
  return f;
}
