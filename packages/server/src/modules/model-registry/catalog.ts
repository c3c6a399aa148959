// The upstream model catalog (new-api's "official" metadata: SYNC_UPSTREAM_BASE), fetched through the outbound
// guard with a size limit and a timeout, and read leniently: entries that are not models are left out.
import { ErrorCode } from '@tollway/shared';
import type { Dispatcher } from 'undici';
import type { AppContext } from '../../context.js';
import { ApiError, coded } from '../../lib/errors.js';
import { guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { BodyTooLarge, getJson, readCapped } from '../../lib/read-capped.js';
import { fetchPolicy, OutboundBlockedError } from '../../lib/outbound-guard.js';
import { DESCRIPTION_MAX, ICON_MAX, NAME_MAX, TAGS_MAX } from './schema.js';

/** Longest wait for one file, connection to last byte (new-api's SYNC_HTTP_TIMEOUT_SECONDS default). */
export const CATALOG_TIMEOUT_MS = 15_000;
/** Largest file read (new-api's SYNC_HTTP_MAX_MB default); a longer answer is refused. */
export const MAX_CATALOG_BYTES = 10 * 1024 * 1024;
/** Most entries read from one file. */
export const MAX_CATALOG_ENTRIES = 50_000;
const SHORT_MAX = 32;
const MODALITIES_MAX = 128;
const INT_MAX = 2_147_483_647;

type CatalogFile = 'models' | 'vendors';

/** The catalog's optional model fields, compared and copied only when the entry has them. */
export const EXTRA_TEXT = {
  knowledge_cutoff: SHORT_MAX,
  release_date: SHORT_MAX,
  parameter_count: SHORT_MAX,
  input_modalities: MODALITIES_MAX,
  output_modalities: MODALITIES_MAX,
} as const;
export const EXTRA_INT = ['context_length', 'max_output_tokens'] as const;
export type ExtraField = keyof typeof EXTRA_TEXT | (typeof EXTRA_INT)[number];

export interface CatalogModel {
  model_name: string;
  description: string;
  icon: string;
  tags: string;
  vendor_name: string;
  name_rule: number;
  status: number;
  /** The optional fields the entry has. */
  extras: Partial<Record<ExtraField, string | number>>;
}

export interface CatalogVendor {
  name: string;
  description: string;
  icon: string;
  status: number;
}

export interface Catalog {
  models: Map<string, CatalogModel>;
  vendors: Map<string, CatalogVendor>;
  source: { locale: string; models_url: string; vendors_url: string };
}

/** The two files of a locale ('' for the default catalog). */
export function catalogUrls(base: string, locale: string): { models_url: string; vendors_url: string } {
  const dir = locale ? `${base}/api/i18n/${locale}/newapi` : `${base}/api/newapi`;
  return { models_url: `${dir}/models.json`, vendors_url: `${dir}/vendors.json` };
}

const str = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const int = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= INT_MAX ? v : 0);

/** The entries of a file: new-api's envelope ({success, data: [...]}) or a bare list. */
function entriesOf(text: string, file: CatalogFile): Record<string, unknown>[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw coded(ErrorCode.ModelCatalogInvalid, `the model catalog's ${file} file is not valid JSON`, { file });
  }
  const list = Array.isArray(value) ? value : (value as { data?: unknown } | null)?.data;
  if (!Array.isArray(list))
    throw coded(ErrorCode.ModelCatalogInvalid, `the model catalog's ${file} file holds no list`, { file });
  return list
    .slice(0, MAX_CATALOG_ENTRIES)
    .filter((e): e is Record<string, unknown> => e !== null && typeof e === 'object' && !Array.isArray(e));
}

export function parseModels(text: string): Map<string, CatalogModel> {
  const out = new Map<string, CatalogModel>();
  for (const e of entriesOf(text, 'models')) {
    const name = typeof e.model_name === 'string' ? e.model_name.trim() : '';
    if (!name || name.length > NAME_MAX || out.has(name)) continue;
    const extras: CatalogModel['extras'] = {};
    for (const [field, max] of Object.entries(EXTRA_TEXT))
      if (field in e) extras[field as ExtraField] = str(e[field], max);
    for (const field of EXTRA_INT) if (field in e) extras[field] = int(e[field]);
    const rule = int(e.name_rule);
    out.set(name, {
      model_name: name,
      description: str(e.description, DESCRIPTION_MAX),
      icon: str(e.icon, ICON_MAX),
      tags: str(e.tags, TAGS_MAX),
      vendor_name: str(e.vendor_name, NAME_MAX).trim(),
      name_rule: rule <= 3 ? rule : 0,
      status: int(e.status),
      extras,
    });
  }
  return out;
}

export function parseVendors(text: string): Map<string, CatalogVendor> {
  const out = new Map<string, CatalogVendor>();
  for (const e of entriesOf(text, 'vendors')) {
    const name = str(e.name, NAME_MAX).trim();
    if (!name || out.has(name)) continue;
    out.set(name, {
      name,
      description: str(e.description, DESCRIPTION_MAX),
      icon: str(e.icon, ICON_MAX),
      status: int(e.status),
    });
  }
  return out;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const MAX_MB = MAX_CATALOG_BYTES / 1024 / 1024;
const tooLarge = (file: CatalogFile) =>
  coded(ErrorCode.ModelCatalogTooLarge, `the model catalog's ${file} file is larger than ${MAX_MB} MB`, {
    file,
    max: MAX_MB,
  });

/** A failure as the administrator sees it: which file and what went wrong, never the answer's text. */
function failure(file: CatalogFile, err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof BodyTooLarge) return tooLarge(file);
  const what = `cannot fetch the model catalog's ${file} file`;
  if (err instanceof OutboundBlockedError)
    return coded(ErrorCode.ModelCatalogFetchFailed, `${what}: ${err.message}`, { file, ...err.reasonParams() });
  const e = err as { code?: unknown; name?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (TIMEOUT_CODES.has(code) || e.name === 'TimeoutError' || e.name === 'AbortError')
    return coded(ErrorCode.ModelCatalogFetchTimeout, `${what}: no answer in time`, { file });
  const reason = `connection failed${/^E[A-Z]+$/.test(code) ? ` (${code})` : ''}`;
  return coded(ErrorCode.ModelCatalogFetchFailed, `${what}: ${reason}`, {
    file,
    reason,
    reason_code: ErrorCode.PresetConnectionFailed,
  });
}

async function fetchText(url: string, file: CatalogFile, dispatcher: Dispatcher): Promise<string> {
  try {
    const res = await getJson(url, dispatcher, 'Tollway-ModelSync', CATALOG_TIMEOUT_MS);
    if (res.statusCode !== 200) {
      await res.body.dump();
      const status = res.statusCode;
      throw coded(ErrorCode.ModelCatalogFetchStatus, `cannot fetch the model catalog's ${file} file: HTTP ${status}`, {
        file,
        status,
      });
    }
    if (Number(res.headers['content-length']) > MAX_CATALOG_BYTES) {
      await res.body.dump();
      throw tooLarge(file);
    }
    try {
      return await readCapped(res.body, MAX_CATALOG_BYTES);
    } catch (err) {
      res.body.destroy();
      throw err;
    }
  } catch (err) {
    throw failure(file, err);
  }
}

/** What fetching the catalog reads: its base URL and the outbound guard's fetch settings. */
export type CatalogDeps = Pick<AppContext, 'config' | 'options'>;

/** Fetches both files; the models file must be readable, a vendors file that is not is taken as empty (new-api's). */
export async function fetchCatalog(deps: CatalogDeps, locale: string): Promise<Catalog> {
  const urls = catalogUrls(deps.config.syncUpstreamBase, locale);
  const dispatcher = guardedDispatcher(() => fetchPolicy(deps.options));
  const [models, vendors] = await Promise.all([
    fetchText(urls.models_url, 'models', dispatcher).then(parseModels),
    fetchText(urls.vendors_url, 'vendors', dispatcher)
      .then(parseVendors)
      .catch(() => new Map<string, CatalogVendor>()),
  ]);
  return { models, vendors, source: { locale, ...urls } };
}
