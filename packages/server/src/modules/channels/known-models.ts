import { ChannelType, channelTypes, defaultModelPrice, defaultModelRatio } from '@tollway/shared';

/** Model families by name prefix, taken from the shipped pricing tables. */
const families: Record<string, RegExp> = {
  openai: /^(gpt-|o\d|text-embedding-|omni-moderation|dall-e|tts-|whisper)/,
  anthropic: /^claude-/,
  google: /^gemini-/,
  deepseek: /^deepseek-/,
  xai: /^grok-/,
  mistral: /^mistral-/,
  moonshot: /^(moonshot-|kimi-)/,
};

/** Which families a channel type serves by default (the editor's "fill default models"). */
const typeFamilies: Record<number, string[]> = {
  [ChannelType.OpenAI]: ['openai'],
  [ChannelType.Azure]: ['openai'],
  [ChannelType.OpenAIMax]: ['openai'],
  [ChannelType.OhMyGPT]: ['openai'],
  [ChannelType.Custom]: ['openai'],
  [ChannelType.AILS]: ['openai'],
  [ChannelType.AIProxy]: ['openai'],
  [ChannelType.API2GPT]: ['openai'],
  [ChannelType.AIGC2D]: ['openai'],
  [ChannelType.Anthropic]: ['anthropic'],
  [ChannelType.OpenRouter]: ['openai', 'anthropic', 'google', 'deepseek', 'xai', 'mistral', 'moonshot'],
  [ChannelType.Gemini]: ['google'],
  [ChannelType.Moonshot]: ['moonshot'],
  [ChannelType.Aws]: ['anthropic'],
  [ChannelType.VertexAi]: ['google', 'anthropic'],
  [ChannelType.Mistral]: ['mistral'],
  [ChannelType.DeepSeek]: ['deepseek'],
  [ChannelType.Xai]: ['xai'],
};

const MJ = [
  'mj_imagine',
  'mj_variation',
  'mj_reroll',
  'mj_blend',
  'mj_upscale',
  'mj_describe',
  'mj_uploads',
  'mj_video',
  'mj_edits',
];
const SUNO = ['suno_music', 'suno_lyrics'];
/** Video models as new-api lists them for its Kling and Sora task channels (Sora's also on OpenAI channels). */
const KLING = ['kling-v1', 'kling-v1-6', 'kling-v2-master', 'kling-v2-1-master', 'kling-v2-5-turbo', 'kling-v2-6'];
const SORA = ['sora-2', 'sora-2-pro'];
/** new-api's model lists of its Jimeng, Vidu, Doubao video and Replicate (image) channels. */
const JIMENG = ['jimeng_vgfm_t2v_l20'];
const VIDU = ['viduq2', 'viduq1', 'vidu2.0', 'vidu1.5'];
const DOUBAO_VIDEO = [
  'doubao-seedance-1-0-pro-250528',
  'doubao-seedance-1-0-lite-t2v',
  'doubao-seedance-1-0-lite-i2v',
  'doubao-seedance-1-5-pro-251215',
  'doubao-seedance-2-0-260128',
  'doubao-seedance-2-0-fast-260128',
];
const REPLICATE = ['black-forest-labs/flux-1.1-pro'];

/** Types whose models are fixed (task actions, video and image models) rather than a family from the pricing tables. */
const fixedModels: Record<number, string[]> = {
  [ChannelType.Midjourney]: MJ,
  [ChannelType.MidjourneyPlus]: [
    ...MJ,
    'mj_modal',
    'mj_zoom',
    'mj_shorten',
    'mj_high_variation',
    'mj_low_variation',
    'mj_pan',
    'mj_inpaint',
    'mj_custom_zoom',
    'swap_face',
  ],
  [ChannelType.SunoAPI]: SUNO,
  [ChannelType.Kling]: KLING,
  [ChannelType.Sora]: SORA,
  [ChannelType.Jimeng]: JIMENG,
  [ChannelType.Vidu]: VIDU,
  [ChannelType.DoubaoVideo]: DOUBAO_VIDEO,
  [ChannelType.Replicate]: REPLICATE,
};

/** Task models a type offers besides its families: an OpenAI channel also serves Sora's video models. */
const extraModels: Record<number, string[]> = {
  [ChannelType.OpenAI]: SORA,
};

/** Who owns a fixed task model (the /api/channel/models owned_by). */
const taskOwners: [string[], string][] = [
  [SUNO, 'suno'],
  [KLING, 'kling'],
  [SORA, 'openai'],
  [JIMENG, 'jimeng'],
  [VIDU, 'vidu'],
  [DOUBAO_VIDEO, 'doubao-video'],
  [REPLICATE, 'replicate'],
];

const shippedModels = [...new Set([...Object.keys(defaultModelRatio), ...Object.keys(defaultModelPrice)])].sort();

export function familyOf(model: string): string | undefined {
  return Object.entries(families).find(([, re]) => re.test(model))?.[0];
}

/** Channel type id → its default model list (every type 1–57 present; [] when there is no default). */
export function modelsByType(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of channelTypes) {
    const fams = typeFamilies[t.id] ?? [];
    const fixed = fixedModels[t.id] ?? shippedModels.filter((m) => fams.includes(familyOf(m) ?? ''));
    out[String(t.id)] = [...new Set([...fixed, ...(extraModels[t.id] ?? [])])];
  }
  return out;
}

export interface KnownModel {
  id: string;
  object: 'model';
  owned_by: string;
}

/** Every model Tollway knows: type defaults, the pricing tables (shipped and configured) and channels' models. */
export function knownModels(extra: Iterable<string>): KnownModel[] {
  const owner = new Map<string, string>();
  for (const [list, who] of taskOwners) for (const m of list) owner.set(m, who);
  for (const list of Object.values(fixedModels)) for (const m of list) if (!owner.has(m)) owner.set(m, 'midjourney');
  for (const m of [...shippedModels, ...extra]) if (!owner.has(m)) owner.set(m, familyOf(m) ?? 'custom');
  return [...owner.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([id, owned_by]) => ({ id, object: 'model', owned_by }));
}
