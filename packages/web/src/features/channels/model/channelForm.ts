import { ChannelType, DEFAULT_GROUP } from '@tollway/shared';
import { z } from 'zod';
import type { Channel, ChannelPayload, MultiKeyMode } from '../api';
import { isJsonObjectText } from './json';
import { splitList } from './status';

/** Validation messages are i18n keys, translated where they are shown. */
const msg = (k: string) => `channels:validation.${k}`;

/** Longest model prefix the server stores. */
export const MODEL_PREFIX_MAX = 64;

const jsonField = (key: string) => z.string().refine(isJsonObjectText, msg(key));

/** The editor's fields; models and groups are lists here and comma text in the payload (the server takes both). */
export const channelFormSchema = (isCreate: boolean) =>
  z
    .object({
      type: z.number().int(),
      name: z.string(),
      base_url: z.string(),
      key: z.string(),
      openai_organization: z.string(),
      models: z.array(z.string()),
      model_mapping: jsonField('modelMappingJson'),
      groups: z.array(z.string()),
      priority: z.number(msg('priorityInteger')).int(msg('priorityInteger')).min(-999, msg('priorityMin')),
      weight: z.number(msg('weightInteger')).int(msg('weightInteger')).min(0, msg('weightInteger')),
      auto_ban: z.boolean(),
      test_model: z.string(),
      tag: z.string(),
      model_prefix: z.string().max(MODEL_PREFIX_MAX, msg('modelPrefixMax')),
      max_input_tokens: z.number(msg('maxInputTokens')).int(msg('maxInputTokens')).min(0, msg('maxInputTokens')),
      status_code_mapping: jsonField('statusCodeMappingJson'),
      system_prompt: z.string(),
      param_override: jsonField('paramOverrideJson'),
      setting: jsonField('settingJson'),
      rpm_limit: z.number(msg('perMinute')).int(msg('perMinute')).min(0, msg('perMinute')),
      tpm_limit: z.number(msg('perMinute')).int(msg('perMinute')).min(0, msg('perMinute')),
      other: z.string(),
      multi_key_off: z.boolean(),
      create_mode: z.enum(['batch', 'multi_to_single']),
      multi_key_mode: z.enum(['random', 'polling']),
      key_update: z.enum(['replace', 'append']),
    })
    .superRefine((v, ctx) => {
      if (isCreate && (v.name.trim() === '' || v.key.trim() === '')) {
        ctx.addIssue({ code: 'custom', path: [v.name.trim() === '' ? 'name' : 'key'], message: msg('nameAndKey') });
      }
      if (!isCreate && v.name.trim() === '')
        ctx.addIssue({ code: 'custom', path: ['name'], message: msg('nameRequired') });
      if (v.models.length === 0) ctx.addIssue({ code: 'custom', path: ['models'], message: msg('modelsRequired') });
      if (v.groups.length === 0) ctx.addIssue({ code: 'custom', path: ['groups'], message: msg('groupsRequired') });
      if (v.type === ChannelType.VertexAi && v.other.trim().startsWith('{') && !isJsonObjectText(v.other)) {
        ctx.addIssue({ code: 'custom', path: ['other'], message: msg('regionJson') });
      }
    });

export type ChannelForm = z.infer<ReturnType<typeof channelFormSchema>>;

/** Defaults of a new channel: type 1, auto_ban on, group default, priority 0, weight 0, no models. */
export const NEW_CHANNEL: ChannelForm = {
  type: ChannelType.OpenAI,
  name: '',
  base_url: '',
  key: '',
  openai_organization: '',
  models: [],
  model_mapping: '',
  groups: [DEFAULT_GROUP],
  priority: 0,
  weight: 0,
  auto_ban: true,
  test_model: '',
  tag: '',
  model_prefix: '',
  max_input_tokens: 0,
  status_code_mapping: '',
  system_prompt: '',
  param_override: '',
  setting: '',
  rpm_limit: 0,
  tpm_limit: 0,
  other: '',
  multi_key_off: false,
  create_mode: 'batch',
  multi_key_mode: 'random',
  key_update: 'replace',
};

/** The channel's own RPM/TPM limits are fields of the editor; they live in the setting JSON. */
const LIMIT_KEYS = ['rpm_limit', 'tpm_limit'] as const;

/** The setting JSON without the limit keys, and the limits it held. */
function splitLimits(text: string): { setting: string; rpm_limit: number; tpm_limit: number } {
  try {
    const s = JSON.parse(text) as Record<string, unknown>;
    if (!s || typeof s !== 'object' || Array.isArray(s)) throw new Error('not an object');
    const limits = { rpm_limit: Number(s.rpm_limit ?? 0) || 0, tpm_limit: Number(s.tpm_limit ?? 0) || 0 };
    for (const k of LIMIT_KEYS) delete s[k];
    return { setting: Object.keys(s).length ? JSON.stringify(s, null, 2) : '', ...limits };
  } catch {
    return { setting: prettyIfJson(text), rpm_limit: 0, tpm_limit: 0 };
  }
}

/** The setting JSON with the limits set (kept out when 0). */
function joinLimits(v: Pick<ChannelForm, 'setting' | 'rpm_limit' | 'tpm_limit'>): string {
  const text = v.setting.trim();
  if (!v.rpm_limit && !v.tpm_limit) return text;
  const s = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  for (const k of LIMIT_KEYS) if (v[k]) s[k] = v[k];
  return JSON.stringify(s);
}

const prettyIfJson = (text: string) => {
  if (!text.trim()) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

/** A loaded channel as form values; JSON fields pretty-printed; the key blank (answers carry it masked). */
export function toForm(c: Channel): ChannelForm {
  return {
    ...NEW_CHANNEL,
    type: c.type,
    name: c.name,
    base_url: c.base_url,
    key: '',
    openai_organization: c.openai_organization,
    models: splitList(c.models),
    model_mapping: prettyIfJson(c.model_mapping),
    groups: splitList(c.group),
    priority: c.priority,
    weight: c.weight,
    auto_ban: c.auto_ban === 1,
    test_model: c.test_model,
    tag: c.tag,
    model_prefix: c.model_prefix ?? '',
    max_input_tokens: c.max_input_tokens ?? 0,
    status_code_mapping: prettyIfJson(c.status_code_mapping),
    system_prompt: c.system_prompt,
    param_override: prettyIfJson(c.param_override),
    ...splitLimits(c.setting),
    other: c.type === ChannelType.VertexAi ? prettyIfJson(c.other) : c.other,
    multi_key_mode: (c.channel_info?.multi_key_mode ?? 'random') as MultiKeyMode,
  };
}

/** Base URL as saved: trimmed, trailing slashes stripped. */
export const normalizeBaseUrl = (url: string) => url.trim().replace(/\/+$/, '');

/** The fields every create or update sends (the key is handled by the caller). */
export function toPayload(v: ChannelForm): ChannelPayload {
  let other = v.other;
  if (v.type === ChannelType.Xunfei && other.trim() === '') other = 'v2.1';
  return {
    name: v.name.trim(),
    type: v.type,
    base_url: normalizeBaseUrl(v.base_url),
    openai_organization: v.openai_organization.trim(),
    models: v.models.join(','),
    group: v.groups.join(','),
    model_mapping: v.model_mapping.trim(),
    status_code_mapping: v.status_code_mapping.trim(),
    setting: joinLimits(v),
    param_override: v.param_override.trim(),
    system_prompt: v.system_prompt,
    auto_ban: v.auto_ban ? 1 : 0,
    priority: Math.trunc(v.priority),
    weight: Math.trunc(v.weight),
    tag: v.tag.trim(),
    model_prefix: v.model_prefix.trim(),
    max_input_tokens: v.max_input_tokens,
    test_model: v.test_model.trim(),
    other,
  };
}
