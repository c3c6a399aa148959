import { anthropicMessages } from './anthropic.js';
import { cohereChat } from './cohere.js';
import { cozeChat } from './coze.js';
import { difyChat } from './dify.js';
import { geminiGenerate } from './gemini.js';
import { hunyuanChat } from './hunyuan.js';
import { openAIChat } from './openai-chat.js';
import { openAIResponses } from './responses.js';
import type { WireFormat } from './types.js';

/** The wire format objects by name (upstream adaptors name the format they speak). */
const formats: Record<string, WireFormat> = {
  openai: openAIChat as WireFormat,
  anthropic: anthropicMessages as WireFormat,
  gemini: geminiGenerate as unknown as WireFormat,
  responses: openAIResponses as unknown as WireFormat,
  cohere: cohereChat as WireFormat,
  dify: difyChat as WireFormat,
  coze: cozeChat as WireFormat,
  hunyuan: hunyuanChat as WireFormat,
};

export function registerFormat(f: WireFormat): void {
  formats[f.name] = f;
}

export function formatFor(name: string): WireFormat {
  const f = formats[name];
  if (!f) throw new Error(`no wire format ${name}`);
  return f;
}
