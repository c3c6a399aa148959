import { anthropicMessages } from '../providers/anthropic/convert.js';
import { cohereChat } from '../providers/cohere/convert.js';
import { cozeChat } from '../providers/coze/convert.js';
import { difyChat } from '../providers/dify/convert.js';
import { geminiGenerate } from '../providers/gemini/convert.js';
import { hunyuanChat } from '../providers/tencent/convert.js';
import { openAIChat } from '../providers/openai/chat.js';
import { openAIResponses } from '../providers/openai/responses.js';
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
