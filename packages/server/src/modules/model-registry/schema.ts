import { ErrorCode, inputRule } from '@tollway/shared';
import { z } from 'zod';

/** How a registry entry's model_name matches served models (new-api's values). */
export const NameRule = { Exact: 0, Prefix: 1, Contains: 2, Suffix: 3 } as const;
export type NameRuleValue = (typeof NameRule)[keyof typeof NameRule];

/** Column sizes (new-api's). */
export const NAME_MAX = 128;
export const ICON_MAX = 128;
export const TAGS_MAX = 255;
export const DESCRIPTION_MAX = 10_000;
export const ENDPOINTS_MAX = 10_000;
const SHORT_MAX = 32;
const MODALITIES_MAX = 128;
/** The console asks for every vendor at once (page_size=1000). */
export const MAX_PAGE_SIZE = 1000;

const page = {
  p: z.coerce.number().int().min(0).max(1_000_000).default(1),
  page_size: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(10),
};
/** '0' or '1' filters; anything else (empty, 'all') does not. */
const flagFilter = z.string().max(10).optional();

/** GET /api/models/ and /search: keyword (name, description, tags), vendor (id or part of a name), status, sync_official. */
export const modelListQuery = z.object({
  ...page,
  keyword: z.string().trim().max(200).optional(),
  vendor: z.string().trim().max(NAME_MAX).optional(),
  status: flagFilter,
  sync_official: flagFilter,
});
export type ModelListQuery = z.infer<typeof modelListQuery>;

export const vendorListQuery = z.object({ ...page, keyword: z.string().trim().max(200).optional() });
export type VendorListQuery = z.infer<typeof vendorListQuery>;

export const idParam = z.object({ id: z.coerce.number().int().positive() });

const flag = z.union([z.literal(0), z.literal(1)]);
const text = (max: number) => z.string().max(max);
const name = z.string().trim().min(1, 'model_name is required').max(NAME_MAX);

/**
 * A JSON object (endpoint type → path, or {path, method}); empty text: the endpoints the channels give. A JSON array
 * of endpoint types is what a read fills in for an entry without its own (new-api's console sends it back on save):
 * it names no path, so it is stored as empty text and the channels keep deciding.
 */
const endpoints = z
  .string()
  .max(ENDPOINTS_MAX)
  .refine(
    (v) => v.trim() === '' || isJsonObject(v) || isEndpointTypeList(v),
    inputRule(ErrorCode.InputNotJsonObject, 'endpoints must be a JSON object'),
  )
  .transform((v) => (isEndpointTypeList(v) ? '' : v));

function isEndpointTypeList(text: string): boolean {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) && v.every((t) => typeof t === 'string');
  } catch {
    return false;
  }
}

function isJsonObject(text: string): boolean {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

const modelFields = {
  description: text(DESCRIPTION_MAX),
  icon: text(ICON_MAX),
  tags: text(TAGS_MAX),
  vendor_id: z
    .number()
    .int()
    .min(0)
    .nullable()
    .transform((v) => v ?? 0),
  endpoints,
  context_length: z.number().int().min(0).max(2_147_483_647),
  max_output_tokens: z.number().int().min(0).max(2_147_483_647),
  knowledge_cutoff: text(SHORT_MAX),
  release_date: text(SHORT_MAX),
  parameter_count: text(SHORT_MAX),
  input_modalities: text(MODALITIES_MAX),
  output_modalities: text(MODALITIES_MAX),
  status: flag,
  sync_official: flag,
  name_rule: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
};

/** POST /api/models/: model_name is required; other fields default (status and sync_official 1, name_rule exact). */
export const createModelBody = z
  .object({ model_name: name, ...modelFields })
  .partial()
  .required({ model_name: true });
export type CreateModelBody = z.infer<typeof createModelBody>;

/** PUT /api/models/: the fields present change; ?status_only=true changes status alone. */
export const updateModelBody = z
  .object({ id: z.number().int().positive(), model_name: name, ...modelFields })
  .partial()
  .required({ id: true });
export type UpdateModelBody = z.infer<typeof updateModelBody>;
export const updateModelQuery = z.object({ status_only: z.enum(['true', 'false']).optional() });

const vendorName = z.string().trim().min(1, 'name is required').max(NAME_MAX);
const vendorFields = { description: text(DESCRIPTION_MAX), icon: text(ICON_MAX), status: flag };
export const createVendorBody = z
  .object({ name: vendorName, ...vendorFields })
  .partial()
  .required({ name: true });
export type CreateVendorBody = z.infer<typeof createVendorBody>;
export const updateVendorBody = z
  .object({ id: z.number().int().positive(), name: vendorName, ...vendorFields })
  .partial()
  .required({ id: true });
export type UpdateVendorBody = z.infer<typeof updateVendorBody>;

/** Catalog locales (new-api's; zh-CN and zh-TW of older consoles are accepted). */
export const SYNC_LOCALES = ['en', 'zh', 'zh-CN', 'zh-TW', 'ja'] as const;
const locale = z.enum(['', ...SYNC_LOCALES]).optional();
/** Fields an overwrite may take from the catalog (vendor: by name). */
export const OVERWRITE_FIELDS = [
  'description',
  'icon',
  'tags',
  'vendor',
  'name_rule',
  'status',
  'context_length',
  'max_output_tokens',
  'knowledge_cutoff',
  'release_date',
  'parameter_count',
  'input_modalities',
  'output_modalities',
] as const;
export type OverwriteField = (typeof OVERWRITE_FIELDS)[number];

export const previewQuery = z.object({ locale, source: z.enum(['', 'official']).optional() });
export const syncBody = z
  .object({
    locale,
    source: z.enum(['', 'official']).optional(),
    overwrite: z
      .array(
        z.object({
          model_name: z.string().min(1).max(NAME_MAX),
          fields: z.array(z.enum(OVERWRITE_FIELDS)).max(OVERWRITE_FIELDS.length),
        }),
      )
      .max(10_000)
      .optional(),
  })
  .default({});
export type SyncBody = z.infer<typeof syncBody>;
