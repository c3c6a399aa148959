/**
 * Upstream channel types (ids as new-api numbers them) with labels, default base URLs and the wire format the
 * upstream speaks. `openai` types are relayed by the OpenAI-compatible adaptor (vendor paths in the server's
 * providers/openai/vendors.ts); cohere, dify, coze and hunyuan have their own formats; `native` ones need an adaptor of their own.
 */
export type WireFormat = 'openai' | 'anthropic' | 'gemini' | 'azure' | 'cohere' | 'dify' | 'coze' | 'hunyuan' | 'native';

export interface ChannelTypeInfo {
  id: number;
  label: string;
  baseUrl: string;
  format: WireFormat;
  /** Key format hint shown in the editor (spec 2 §9). */
  keyFormat?: string;
}

const t = (id: number, label: string, baseUrl: string, format: WireFormat, keyFormat?: string): ChannelTypeInfo => ({ id, label, baseUrl, format, keyFormat });

export const channelTypes: ChannelTypeInfo[] = [
  t(1, 'OpenAI', 'https://api.openai.com', 'openai'),
  t(2, 'Midjourney Proxy', '', 'native'),
  t(3, 'Azure OpenAI', '', 'azure'),
  t(4, 'Ollama', 'http://localhost:11434', 'openai'),
  t(5, 'Midjourney Proxy Plus', '', 'native'),
  t(6, 'OpenAI Max', 'https://api.openai.com', 'openai'),
  t(7, 'OhMyGPT', 'https://api.ohmygpt.com', 'openai'),
  t(8, 'Custom (OpenAI-compatible)', '', 'openai'),
  t(9, 'AILS', 'https://api.caipacity.com', 'openai'),
  t(10, 'AI Proxy', 'https://api.aiproxy.io', 'openai'),
  t(11, 'Google PaLM2', '', 'native'),
  t(12, 'API2GPT', 'https://api.api2gpt.com', 'openai'),
  t(13, 'AIGC2D', 'https://api.aigc2d.com', 'openai'),
  t(14, 'Anthropic Claude', 'https://api.anthropic.com', 'anthropic'),
  t(15, 'Baidu Wenxin', 'https://aip.baidubce.com', 'native', 'APIKey|SecretKey'),
  t(16, 'Zhipu ChatGLM', 'https://open.bigmodel.cn', 'native'),
  t(17, 'Ali Tongyi Qianwen', 'https://dashscope.aliyuncs.com', 'openai'),
  t(18, 'iFlytek Spark', '', 'native', 'APPID|APISecret|APIKey'),
  t(19, '360 Zhinao', 'https://ai.360.cn', 'openai'),
  t(20, 'OpenRouter', 'https://openrouter.ai/api', 'openai'),
  t(21, 'AI Proxy Library', 'https://api.aiproxy.io', 'native'),
  t(22, 'FastGPT', 'https://fastgpt.run/api/openapi', 'openai', 'APIKey-AppId'),
  t(23, 'Tencent Hunyuan', 'https://hunyuan.tencentcloudapi.com', 'hunyuan', 'AppId|SecretId|SecretKey'),
  t(24, 'Google Gemini', 'https://generativelanguage.googleapis.com', 'gemini'),
  t(25, 'Moonshot', 'https://api.moonshot.cn', 'openai'),
  t(26, 'Zhipu GLM-4', 'https://open.bigmodel.cn', 'openai'),
  t(27, 'Perplexity', 'https://api.perplexity.ai', 'openai'),
  t(28, 'Reserved 28', '', 'openai'),
  t(29, 'Reserved 29', '', 'openai'),
  t(30, 'Reserved 30', '', 'openai'),
  t(31, '01.AI LingYiWanWu', 'https://api.lingyiwanwu.com', 'openai'),
  t(32, 'Reserved 32', '', 'openai'),
  t(33, 'AWS Bedrock', '', 'native', 'Ak|Sk|Region'),
  t(34, 'Cohere', 'https://api.cohere.ai', 'cohere'),
  t(35, 'MiniMax', 'https://api.minimax.chat', 'openai'),
  t(36, 'Suno API', '', 'native'),
  t(37, 'Dify', '', 'dify'),
  t(38, 'Jina', 'https://api.jina.ai', 'openai'),
  t(39, 'Cloudflare Workers AI', 'https://api.cloudflare.com', 'openai'),
  t(40, 'SiliconFlow', 'https://api.siliconflow.cn', 'openai'),
  t(41, 'Google Vertex AI', '', 'native'),
  t(42, 'Mistral', 'https://api.mistral.ai', 'openai'),
  t(43, 'DeepSeek', 'https://api.deepseek.com', 'openai'),
  t(44, 'MokaAI', 'https://api.moka.ai', 'openai'),
  t(45, 'Volcengine Ark', 'https://ark.cn-beijing.volces.com', 'openai'),
  t(46, 'Baidu Qianfan v2', 'https://qianfan.baidubce.com', 'openai'),
  t(47, 'Xinference', '', 'openai'),
  t(48, 'xAI', 'https://api.x.ai', 'openai'),
  t(49, 'Coze', 'https://api.coze.cn', 'coze'),
  t(50, 'Kling', 'https://api.klingai.com', 'native'),
  t(51, 'Jimeng', 'https://visual.volcengineapi.com', 'native'),
  t(52, 'Vidu', 'https://api.vidu.cn', 'native'),
  t(53, 'Submodel', 'https://llm.submodel.ai', 'openai'),
  t(54, 'Doubao Video', 'https://ark.cn-beijing.volces.com', 'native'),
  t(55, 'Sora', 'https://api.openai.com', 'native'),
  t(56, 'Replicate', 'https://api.replicate.com', 'native'),
  t(57, 'Codex', 'https://chatgpt.com', 'native'),
];

export const channelTypeById = new Map(channelTypes.map((c) => [c.id, c]));
