import { z } from 'zod';
import { ErrorCode } from '../error-codes.js';
import { inputRefusal, inputRule } from '../input-rules.js';
import { channelRateLimits } from '../rate-limits.js';
import { channelCostSetting } from '../routing-strategy.js';
import { channelTypeById } from '../channel-types.js';
import { pageQuery, queryBool } from './common.js';

/** Channel status: 1 enabled, 2 disabled by an administrator, 3 disabled automatically (reason in other_info). */
export const ChannelStatus = { Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;

export const CHANNEL_CREATE_REQUIRED = 'please fill in the channel name and key';
const MODELS_REQUIRED = 'at least one model is required';
const GROUPS_REQUIRED = 'at least one group is required';

/** Splits a comma (or newline) separated list or takes an array; trims, drops blanks and duplicates. */
export function toNameList(v: string | string[]): string[] {
  const parts = Array.isArray(v) ? v : v.split(/[,\n]/);
  return [...new Set(parts.map((s) => s.trim()).filter(Boolean))];
}

const nameList = (field: string, itemMax: number) =>
  z
    .union([z.string().max(200_000), z.array(z.string().max(itemMax)).max(10_000)], {
      error: `${field} must be a comma separated text or a list of names`,
    })
    .transform(toNameList)
    .refine(
      (list) => list.every((m) => m.length <= itemMax),
      inputRule(ErrorCode.InputItemTooLong, `${field}: each name must be at most ${itemMax} characters`, {
        max: itemMax,
      }),
    );

/** JSON object given as text (or as an object); '' means empty. The message names the field. */
const jsonObjectText = (field: string, max = 1_000_000) =>
  z
    .union([z.string().max(max), z.record(z.string(), z.unknown())], { error: `${field} must be a valid JSON object` })
    .transform((v, ctx) => {
      const text = typeof v === 'string' ? v.trim() : JSON.stringify(v);
      if (text === '') return '';
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
        ctx.addIssue({
          code: 'custom',
          ...inputRule(ErrorCode.InputNotJsonObject, `${field} must be a valid JSON object`),
        });
        return z.NEVER;
      }
      if (text.length > max) {
        ctx.addIssue({
          code: 'custom',
          ...inputRule(ErrorCode.InputTooLong, `${field} must be at most ${max} characters`, { max }),
        });
        return z.NEVER;
      }
      return text;
    });

/** null, which new-api answers for an empty text column, sent back means empty. */
const nullAsEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? '' : v), schema);

/** Most characters of a channel's settings JSON, header_override JSON and remark (new-api's varchar(255)). */
const CHANNEL_SETTINGS_MAX = 100_000;
const HEADER_OVERRIDE_MAX = 64_000;
const REMARK_MAX = 255;

/** Largest value an integer field given as text accepts. */
const INT_LIKE_MAX = 1e12;

/** An integer given as a number or numeric text (the console parses inputs to integers, scripts may send text). */
const intLike = (field: string, min: number, minMessage: string) =>
  z.union([z.number(), z.string().trim().max(20)], { error: `${field} must be an integer` }).transform((v, ctx) => {
    const n = typeof v === 'number' ? v : v === '' ? Number.NaN : Number(v);
    if (!Number.isInteger(n)) {
      ctx.addIssue({ code: 'custom', ...inputRule(ErrorCode.InputNotInteger, `${field} must be an integer`) });
      return z.NEVER;
    }
    if (n < min) {
      ctx.addIssue({ code: 'custom', ...inputRule(ErrorCode.InputTooSmall, minMessage, { min }) });
      return z.NEVER;
    }
    if (n > INT_LIKE_MAX) {
      ctx.addIssue({
        code: 'custom',
        ...inputRule(ErrorCode.InputTooLarge, `${field} must be at most ${INT_LIKE_MAX}`, { max: INT_LIKE_MAX }),
      });
      return z.NEVER;
    }
    return n;
  });

const channelType = z
  .number()
  .int('type must be a known channel type id')
  .refine(
    (id) => channelTypeById.has(id),
    inputRule(ErrorCode.ChannelTypeUnknown, 'type must be a known channel type id (1-58, 100, 101)'),
  );

const baseUrl = z
  .string()
  .trim()
  .max(512, 'base_url must be at most 512 characters')
  .transform((v) => v.replace(/\/+$/, ''))
  .refine(
    (v) => v === '' || /^https?:\/\/[^\s/]+/i.test(v),
    inputRule(ErrorCode.InputNotHttpUrl, 'base_url must start with http:// or https://'),
  );

/** The keys of a channel's setting JSON checked on save: its own rate limits and its lowest_price cost factor. */
const channelSettingRules = channelRateLimits.extend(channelCostSetting.shape);

/** Every editable channel field; all optional (create adds its required ones, update changes what it is given). */
export const channelFields = z.object({
  name: z.string().trim().max(128, 'name must be at most 128 characters').optional(),
  type: channelType.optional(),
  key: z.string().max(5_000_000).optional(),
  openai_organization: z.string().trim().max(128).optional(),
  test_model: z.string().trim().max(128).optional(),
  base_url: baseUrl.optional(),
  other: z.string().max(100_000).optional(),
  models: nameList('models', 191).optional(),
  group: nameList('group', 64).optional(),
  model_mapping: jsonObjectText('model_mapping').optional(),
  status_code_mapping: jsonObjectText('status_code_mapping', 1024).optional(),
  setting: jsonObjectText('setting')
    .superRefine((text, ctx) => {
      // The channel's own RPM/TPM limits, when set, are whole numbers, and its lowest_price cost factor a positive
      // number: each failure names its key (setting.rpm_limit).
      const limits = text ? channelSettingRules.safeParse(JSON.parse(text)) : undefined;
      for (const issue of limits?.error?.issues ?? []) {
        const { code, params } = inputRefusal(issue, '');
        ctx.addIssue({ code: 'custom', ...inputRule(code, issue.message, params, issue.path) });
      }
    })
    .optional(),
  param_override: jsonObjectText('param_override').optional(),
  /** new-api's "other settings" (JSON object); null (new-api's empty) is ''. Known keys are checked by the server. */
  settings: nullAsEmpty(jsonObjectText('settings', CHANNEL_SETTINGS_MAX)).optional(),
  /** Headers sent upstream: a JSON object of name → value; the server checks names, values and placeholders. */
  header_override: nullAsEmpty(jsonObjectText('header_override', HEADER_OVERRIDE_MAX)).optional(),
  remark: nullAsEmpty(z.string().max(REMARK_MAX, `remark must be at most ${REMARK_MAX} characters`)).optional(),
  auto_ban: z
    .union([z.literal(0), z.literal(1), z.boolean()], { error: 'auto_ban must be 0 or 1' })
    .transform((v) => (v === true || v === 1 ? 1 : 0))
    .optional(),
  priority: intLike('priority', -999, 'priority must be -999 or more').optional(),
  weight: intLike('weight', 0, 'weight must be a non-negative integer').optional(),
  tag: z.string().trim().max(64, 'tag must be at most 64 characters').optional(),
  model_prefix: z.string().trim().max(64).optional(),
  system_prompt: z.string().max(1_000_000).optional(),
  max_input_tokens: z.number().int().min(0).optional(),
  expired_time: z.number().int().min(0).optional(),
  status: z
    .number()
    .int()
    .refine((s) => s === 1 || s === 2, inputRule(ErrorCode.StatusInvalid, 'status must be 1 (enabled) or 2 (disabled)'))
    .optional(),
});
export type ChannelFieldsInput = z.infer<typeof channelFields>;

export const multiKeyMode = z.enum(['random', 'polling']);

/** POST /api/channel/: single, batch (one channel per key line) or multi_to_single (one channel holding all keys). */
export const createChannelBody = z.object({
  mode: z.enum(['single', 'batch', 'multi_to_single']).default('single'),
  multi_key_mode: multiKeyMode.default('random'),
  channel: channelFields.superRefine((c, ctx) => {
    if (!c.name || !c.key?.trim())
      ctx.addIssue({
        code: 'custom',
        ...inputRule(ErrorCode.ChannelNameKeyRequired, CHANNEL_CREATE_REQUIRED, undefined, [c.name ? 'key' : 'name']),
      });
    if (!c.models?.length)
      ctx.addIssue({
        code: 'custom',
        ...inputRule(ErrorCode.ChannelModelsRequired, MODELS_REQUIRED, undefined, ['models']),
      });
    if (c.group && c.group.length === 0)
      ctx.addIssue({
        code: 'custom',
        ...inputRule(ErrorCode.ChannelGroupsRequired, GROUPS_REQUIRED, undefined, ['group']),
      });
  }),
});
export type CreateChannelBody = z.infer<typeof createChannelBody>;

/**
 * PUT /api/channel/: the given fields replace the stored ones (absent fields are kept; an empty key keeps the
 * key). Row actions are the same call with only {id, status}, {id, priority} or {id, weight}.
 */
export const updateChannelBody = channelFields
  .extend({
    id: z.number().int().positive(),
    /** Multi-key channels: replace all keys (default) or append the given lines. */
    key_mode: z.enum(['replace', 'append']).optional(),
    multi_key_mode: multiKeyMode.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.name !== undefined && c.name === '')
      ctx.addIssue({
        code: 'custom',
        ...inputRule(ErrorCode.ChannelNameRequired, 'name cannot be empty', undefined, ['name']),
      });
    if (c.models && c.models.length === 0)
      ctx.addIssue({
        code: 'custom',
        ...inputRule(ErrorCode.ChannelModelsRequired, MODELS_REQUIRED, undefined, ['models']),
      });
    if (c.group && c.group.length === 0)
      ctx.addIssue({
        code: 'custom',
        ...inputRule(ErrorCode.ChannelGroupsRequired, GROUPS_REQUIRED, undefined, ['group']),
      });
  });
export type UpdateChannelBody = z.infer<typeof updateChannelBody>;

const idList = (emptyMessage: string) => z.array(z.number().int().positive()).min(1, emptyMessage).max(10_000);

export const channelIdsBody = z.object({ ids: idList('please select channels to delete first') });

/** tag null (new-api's way) removes the tag of the selected channels. */
export const batchTagBody = z.object({
  ids: idList('please select channels first'),
  tag: z.string().trim().min(1, 'tag cannot be empty').max(64, 'tag must be at most 64 characters').nullable(),
});

export const tagBody = z.object({ tag: z.string().trim().min(1, 'tag cannot be empty').max(64) });

/** Blank ('' or null or absent) means "no change" (undefined after parsing). */
const blankable = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), schema.optional());

/**
 * PUT /api/channel/tag: every given field overwrites all channels of the tag; blank fields are unchanged.
 * new_tag absent or null keeps the tag, '' dissolves it (the channels become untagged).
 */
export const editTagBody = z.object({
  tag: z.string().trim().min(1, 'tag cannot be empty').max(64),
  new_tag: z.string().trim().max(64, 'new_tag must be at most 64 characters').nullable().optional(),
  model_mapping: blankable(jsonObjectText('model_mapping')),
  param_override: blankable(jsonObjectText('param_override')),
  header_override: blankable(jsonObjectText('header_override', HEADER_OVERRIDE_MAX)),
  groups: blankable(nameList('groups', 64)),
  models: blankable(nameList('models', 191)),
  priority: blankable(intLike('priority', -999, 'priority must be -999 or more')),
  weight: blankable(intLike('weight', 0, 'weight must be a non-negative integer')),
});
export type EditTagBody = z.infer<typeof editTagBody>;

/** POST /api/channel/fetch_models: list an upstream's models before the channel exists (first key only). */
export const fetchModelsBody = z.object({
  base_url: baseUrl.optional().default(''),
  type: channelType.optional().default(1),
  key: z.string().trim().min(1, 'please fill in the key').max(100_000),
});

export const channelListQuery = pageQuery.extend({
  id_sort: queryBool.optional(),
  tag_mode: queryBool.optional(),
  /** Only channels of this type. */
  type: z.coerce.number().int().min(0).max(1000).optional(),
  /** enabled = status 1, disabled = status 2 or 3. */
  status: z.enum(['all', 'enabled', 'disabled', '']).optional(),
});

export const channelSearchQuery = channelListQuery.extend({
  keyword: z.string().trim().max(200).optional(),
  group: z.string().trim().max(64).optional(),
  model: z.string().trim().max(191).optional(),
});

export const channelTestQuery = z.object({ model: z.string().trim().max(191).optional() });

/** Multi-key state as the API returns it. */
export const channelInfo = z.object({
  is_multi_key: z.boolean(),
  multi_key_size: z.number().int(),
  multi_key_mode: multiKeyMode,
  /** Index → status (2 manual, 3 auto-disabled) for keys that are not enabled. */
  multi_key_status_list: z.record(z.string(), z.number().int()),
  multi_key_disabled_reason: z.record(z.string(), z.string()),
  multi_key_disabled_time: z.record(z.string(), z.number().int()),
  multi_key_polling_index: z.number().int(),
});

const breakerState = z.enum(['closed', 'open', 'half_open']);

/** A channel's circuit breaker as the answering node sees it (list and search rows). */
export const channelHealth = z.object({
  state: breakerState,
  open_until: z.number().int().describe('epoch seconds the cool-down ends (state open); 0 otherwise'),
  error_rate: z.number().describe('failed share of the calls in the window, 0–1 (this node)'),
  requests: z.number().int().describe('calls counted in the window (this node)'),
  p50_latency_ms: z.number().int().describe('median time to first byte of answered calls in the window; 0 = none'),
  keys: z
    .record(z.string(), breakerState)
    .describe('multi-key channels: key index → state, for keys whose breaker is not closed'),
});
export type ChannelHealth = z.infer<typeof channelHealth>;

/** A channel as the API returns it. In list and search rows `key` is masked; GET /api/channel/:id gives it whole. */
export const channelPublic = z.object({
  id: z.number().int(),
  type: z.number().int(),
  name: z.string(),
  key: z.string(),
  status: z.number().int(),
  openai_organization: z.string(),
  test_model: z.string(),
  base_url: z.string(),
  other: z.string(),
  models: z.string().describe('comma separated'),
  group: z.string().describe('comma separated'),
  model_mapping: z.string(),
  status_code_mapping: z.string(),
  setting: z.string(),
  param_override: z.string(),
  system_prompt: z.string(),
  auto_ban: z.number().int(),
  priority: z.number().int(),
  weight: z.number().int(),
  tag: z.string(),
  model_prefix: z.string(),
  max_input_tokens: z.number().int(),
  expired_time: z.number().int(),
  created_time: z.number().int(),
  test_time: z.number().int(),
  response_time: z.number().int().describe('milliseconds; 0 = never tested'),
  balance: z.number(),
  balance_updated_time: z.number().int(),
  used_quota: z.number().int(),
  other_info: z
    .string()
    .describe('JSON text: {status_reason, status_time} for status 3; test_error while the last test failed'),
  channel_info: channelInfo,
  settings: z.string().describe("JSON text: new-api's other settings (allow_service_tier, claude_beta_query…)"),
  header_override: z.string().describe('JSON text: headers sent upstream, with {api_key} / {client_header:name}'),
  remark: z.string(),
  health: channelHealth.optional().describe('list and search rows only'),
});
export type ChannelPublic = z.infer<typeof channelPublic>;

/** Tag mode: one row per tag aggregating its channels (which are in `children`, keys masked). */
export const channelTagRow = z.object({
  is_tag: z.literal(true),
  tag: z.string(),
  name: z.string().describe('the tag'),
  status: z.number().int().describe('1 when any child is enabled, else 2'),
  type: z.number().int().describe("the children's type, 0 when they differ"),
  models: z.string().describe('union of the children, comma separated'),
  group: z.string().describe('union of the children, comma separated'),
  priority: z.number().int().describe('highest child priority'),
  weight: z.number().int().describe('highest child weight'),
  response_time: z.number().int().describe('average over tested children, ms'),
  used_quota: z.number().int(),
  balance: z.number(),
  channel_count: z.number().int(),
  enabled_count: z.number().int(),
  children: z.array(channelPublic),
});
export type ChannelTagRow = z.infer<typeof channelTagRow>;

export const channelListRow = z.union([channelPublic, channelTagRow]);
export type ChannelListRow = z.infer<typeof channelListRow>;

export const channelTestResult = z.object({
  success: z.boolean(),
  message: z.string(),
  code: z.string().optional().describe("a failure's error code (channel_test_failed)"),
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  time: z.number().describe('seconds'),
});
