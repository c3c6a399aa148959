/**
 * Upstream channel types (ids as new-api numbers them) with labels, default base URLs, key-format hints and the
 * wire format the upstream speaks, as the console shows them. The server serves each type by a provider
 * descriptor (server's relay/providers/registry.ts): every `openai` row by the OpenAI-compatible one (vendor
 * paths in providers/openai/vendors.ts), the other rows by their provider's, or none yet (native protocols).
 */
export type WireFormat =
  | 'openai'
  | 'anthropic'
  | 'gemini'
  | 'azure'
  | 'cohere'
  | 'dify'
  | 'coze'
  | 'hunyuan'
  | 'ernie'
  | 'chatglm'
  | 'spark'
  | 'aiproxy-library'
  | 'palm'
  | 'responses'
  | 'replicate'
  | 'native';

/** Channel type ids by name (new-api's ChannelType* names; 28–30 and 32 are unused there). */
export const ChannelType = {
  OpenAI: 1,
  Midjourney: 2,
  Azure: 3,
  Ollama: 4,
  MidjourneyPlus: 5,
  OpenAIMax: 6,
  OhMyGPT: 7,
  Custom: 8,
  AILS: 9,
  AIProxy: 10,
  PaLM: 11,
  API2GPT: 12,
  AIGC2D: 13,
  Anthropic: 14,
  Baidu: 15,
  Zhipu: 16,
  Ali: 17,
  Xunfei: 18,
  Ai360: 19,
  OpenRouter: 20,
  AIProxyLibrary: 21,
  FastGPT: 22,
  Tencent: 23,
  Gemini: 24,
  Moonshot: 25,
  ZhipuV4: 26,
  Perplexity: 27,
  Reserved28: 28,
  Reserved29: 29,
  Reserved30: 30,
  LingYiWanWu: 31,
  Reserved32: 32,
  Aws: 33,
  Cohere: 34,
  MiniMax: 35,
  SunoAPI: 36,
  Dify: 37,
  Jina: 38,
  Cloudflare: 39,
  SiliconFlow: 40,
  VertexAi: 41,
  Mistral: 42,
  DeepSeek: 43,
  MokaAI: 44,
  VolcEngine: 45,
  BaiduV2: 46,
  Xinference: 47,
  Xai: 48,
  Coze: 49,
  Kling: 50,
  Jimeng: 51,
  Vidu: 52,
  Submodel: 53,
  DoubaoVideo: 54,
  Sora: 55,
  Replicate: 56,
  Codex: 57,
  KuaiziLizhen: 58,
  BlockRun: 100,
  BlockRunVideo: 101,
} as const;

export interface ChannelTypeInfo {
  id: number;
  label: string;
  baseUrl: string;
  format: WireFormat;
  /** Key format hint shown in the editor. */
  keyFormat?: string;
}

const t = (id: number, label: string, baseUrl: string, format: WireFormat, keyFormat?: string): ChannelTypeInfo => ({
  id,
  label,
  baseUrl,
  format,
  keyFormat,
});

export const channelTypes: ChannelTypeInfo[] = [
  t(ChannelType.OpenAI, 'OpenAI', 'https://api.openai.com', 'openai'),
  t(ChannelType.Midjourney, 'Midjourney Proxy', '', 'native'),
  t(ChannelType.Azure, 'Azure OpenAI', '', 'azure'),
  t(ChannelType.Ollama, 'Ollama', 'http://localhost:11434', 'openai'),
  t(ChannelType.MidjourneyPlus, 'Midjourney Proxy Plus', '', 'native'),
  t(ChannelType.OpenAIMax, 'OpenAI Max', 'https://api.openai.com', 'openai'),
  t(ChannelType.OhMyGPT, 'OhMyGPT', 'https://api.ohmygpt.com', 'openai'),
  t(ChannelType.Custom, 'Custom (OpenAI-compatible)', '', 'openai'),
  t(ChannelType.AILS, 'AILS', 'https://api.caipacity.com', 'openai'),
  t(ChannelType.AIProxy, 'AI Proxy', 'https://api.aiproxy.io', 'openai'),
  t(ChannelType.PaLM, 'Google PaLM2 (retired)', 'https://generativelanguage.googleapis.com', 'palm'),
  t(ChannelType.API2GPT, 'API2GPT', 'https://api.api2gpt.com', 'openai'),
  t(ChannelType.AIGC2D, 'AIGC2D', 'https://api.aigc2d.com', 'openai'),
  t(ChannelType.Anthropic, 'Anthropic Claude', 'https://api.anthropic.com', 'anthropic'),
  t(ChannelType.Baidu, 'Baidu Wenxin', 'https://aip.baidubce.com', 'ernie', 'APIKey|SecretKey'),
  t(ChannelType.Zhipu, 'Zhipu ChatGLM', 'https://open.bigmodel.cn', 'chatglm', 'id.secret'),
  t(ChannelType.Ali, 'Ali Tongyi Qianwen', 'https://dashscope.aliyuncs.com', 'openai'),
  t(ChannelType.Xunfei, 'iFlytek Spark', 'https://spark-api.xf-yun.com', 'spark', 'APPID|APISecret|APIKey'),
  t(ChannelType.Ai360, '360 Zhinao', 'https://ai.360.cn', 'openai'),
  t(ChannelType.OpenRouter, 'OpenRouter', 'https://openrouter.ai/api', 'openai'),
  t(ChannelType.AIProxyLibrary, 'AI Proxy Library', 'https://api.aiproxy.io', 'aiproxy-library'),
  t(ChannelType.FastGPT, 'FastGPT', 'https://fastgpt.run/api/openapi', 'openai', 'APIKey-AppId'),
  t(
    ChannelType.Tencent,
    'Tencent Hunyuan',
    'https://hunyuan.tencentcloudapi.com',
    'hunyuan',
    'AppId|SecretId|SecretKey',
  ),
  t(ChannelType.Gemini, 'Google Gemini', 'https://generativelanguage.googleapis.com', 'gemini'),
  t(ChannelType.Moonshot, 'Moonshot', 'https://api.moonshot.cn', 'openai'),
  t(ChannelType.ZhipuV4, 'Zhipu GLM-4', 'https://open.bigmodel.cn', 'openai'),
  t(ChannelType.Perplexity, 'Perplexity', 'https://api.perplexity.ai', 'openai'),
  t(ChannelType.Reserved28, 'Reserved 28', '', 'openai'),
  t(ChannelType.Reserved29, 'Reserved 29', '', 'openai'),
  t(ChannelType.Reserved30, 'Reserved 30', '', 'openai'),
  t(ChannelType.LingYiWanWu, '01.AI LingYiWanWu', 'https://api.lingyiwanwu.com', 'openai'),
  t(ChannelType.Reserved32, 'Reserved 32', '', 'openai'),
  t(ChannelType.Aws, 'AWS Bedrock', '', 'native', 'Ak|Sk|Region'),
  t(ChannelType.Cohere, 'Cohere', 'https://api.cohere.ai', 'cohere'),
  t(ChannelType.MiniMax, 'MiniMax', 'https://api.minimax.chat', 'openai'),
  t(ChannelType.SunoAPI, 'Suno API', '', 'native'),
  t(ChannelType.Dify, 'Dify', '', 'dify'),
  t(ChannelType.Jina, 'Jina', 'https://api.jina.ai', 'openai'),
  t(ChannelType.Cloudflare, 'Cloudflare Workers AI', 'https://api.cloudflare.com', 'openai'),
  t(ChannelType.SiliconFlow, 'SiliconFlow', 'https://api.siliconflow.cn', 'openai'),
  t(ChannelType.VertexAi, 'Google Vertex AI', '', 'native'),
  t(ChannelType.Mistral, 'Mistral', 'https://api.mistral.ai', 'openai'),
  t(ChannelType.DeepSeek, 'DeepSeek', 'https://api.deepseek.com', 'openai'),
  t(ChannelType.MokaAI, 'MokaAI', 'https://api.moka.ai', 'openai'),
  t(ChannelType.VolcEngine, 'Volcengine Ark', 'https://ark.cn-beijing.volces.com', 'openai'),
  t(ChannelType.BaiduV2, 'Baidu Qianfan v2', 'https://qianfan.baidubce.com', 'openai'),
  t(ChannelType.Xinference, 'Xinference', '', 'openai'),
  t(ChannelType.Xai, 'xAI', 'https://api.x.ai', 'openai'),
  t(ChannelType.Coze, 'Coze', 'https://api.coze.cn', 'coze'),
  t(ChannelType.Kling, 'Kling', 'https://api.klingai.com', 'native', 'access_key|secret_key'),
  t(ChannelType.Jimeng, 'Jimeng', 'https://visual.volcengineapi.com', 'native', 'AccessKey|SecretKey'),
  t(ChannelType.Vidu, 'Vidu', 'https://api.vidu.cn', 'native'),
  t(ChannelType.Submodel, 'Submodel', 'https://llm.submodel.ai', 'openai'),
  t(ChannelType.DoubaoVideo, 'Doubao Video', 'https://ark.cn-beijing.volces.com', 'native'),
  t(ChannelType.Sora, 'Sora', 'https://api.openai.com', 'native'),
  t(ChannelType.Replicate, 'Replicate', 'https://api.replicate.com', 'replicate'),
  t(ChannelType.Codex, 'Codex', 'https://chatgpt.com', 'responses', 'OAuth credential JSON'),
  t(
    ChannelType.KuaiziLizhen,
    'Kuaizi Lizhen',
    'https://aiopenapi.kuaizi.cn/ai-open-platform-api/v1/lz/video/task',
    'native',
  ),
  t(ChannelType.BlockRun, 'BlockRun', 'https://blockrun.ai/api', 'native'),
  t(ChannelType.BlockRunVideo, 'BlockRun Video', 'https://api2.flatkey.ai', 'native'),
];

export const channelTypeById = new Map(channelTypes.map((c) => [c.id, c]));

/** Ids new-api leaves unused (28–30, 32): listed so old rows show, never offered for a new choice. */
export const RESERVED_CHANNEL_TYPES: ReadonlySet<number> = new Set([
  ChannelType.Reserved28,
  ChannelType.Reserved29,
  ChannelType.Reserved30,
  ChannelType.Reserved32,
]);
