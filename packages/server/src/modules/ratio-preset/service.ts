// Preset ratio files fetched from the public assets host (RATIO_PRESET_BASE_URL) through the outbound guard.
import type { Dispatcher } from 'undici';
import type { AppContext } from '../../context.js';
import { ErrorCode } from '@tollway/shared';
import { ApiError, coded } from '../../lib/errors.js';
import { guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy, OutboundBlockedError, type OutboundPolicy } from '../../lib/outbound-guard.js';
import { BodyTooLarge, getJson, readCapped } from '../../lib/read-capped.js';
import { nowSeconds } from '../../lib/time.js';
import { OFFICIAL_SOURCE, type PresetAnswer, type PresetSource } from './schema.js';
import { parseRatioFile, PresetFileError } from './validate.js';

/** Longest wait for one file, connection to last byte. */
const TIMEOUT_MS = 10_000;
/** Largest file read; a longer answer is refused. */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** How long a fetched preset is served from memory. */
export const CACHE_MS = 5 * 60_000;

type FileKind = 'prompt' | 'completion';

/** The files of a source: a prompt and a completion file, or the completion file alone for legacy. */
export function presetFiles(base: string, source: PresetSource): Partial<Record<FileKind, string>> {
  if (source === 'legacy') return { completion: `${base}/completion.json` };
  return { prompt: `${base}/${source}/prompt.json`, completion: `${base}/${source}/completion.json` };
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** A failure as the root sees it: what went wrong with which file, never the answer's text. */
function failure(kind: FileKind, err: unknown): ApiError {
  const what = `the preset's ${kind} file`;
  if (err instanceof ApiError) return err;
  if (err instanceof BodyTooLarge) return tooLarge(kind);
  if (err instanceof OutboundBlockedError)
    return coded(ErrorCode.PresetFetchFailed, `cannot fetch ${what}: ${err.message}`, {
      file: kind,
      ...err.reasonParams(),
    });
  if (err instanceof PresetFileError)
    return coded(ErrorCode.PresetFileInvalid, `${what} ${err.message}`, { file: kind, ...err.reasonParams() });
  const e = err as { code?: unknown; name?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (TIMEOUT_CODES.has(code) || e.name === 'TimeoutError' || e.name === 'AbortError')
    return coded(ErrorCode.PresetFetchTimeout, `cannot fetch ${what}: no answer in time`, { file: kind });
  const reason = `connection failed${/^E[A-Z]+$/.test(code) ? ` (${code})` : ''}`;
  return coded(ErrorCode.PresetFetchFailed, `cannot fetch ${what}: ${reason}`, {
    file: kind,
    reason,
    reason_code: ErrorCode.PresetConnectionFailed,
  });
}

const MAX_FILE_MB = MAX_FILE_BYTES / 1024 / 1024;
const tooLarge = (kind: FileKind) =>
  coded(ErrorCode.PresetFileTooLarge, `the preset's ${kind} file is larger than ${MAX_FILE_MB} MB`, {
    file: kind,
    max: MAX_FILE_MB,
  });

async function fetchFile(url: string, kind: FileKind, dispatcher: Dispatcher): Promise<Record<string, number>> {
  try {
    const res = await getJson(url, dispatcher, 'Tollway-RatioPreset', TIMEOUT_MS);
    if (res.statusCode !== 200) {
      await res.body.dump();
      const status = res.statusCode;
      throw coded(
        ErrorCode.PresetFetchStatus,
        `cannot fetch the preset's ${kind} file: the host answered HTTP ${status}`,
        { file: kind, status },
      );
    }
    const declared = Number(res.headers['content-length']);
    if (declared > MAX_FILE_BYTES) {
      await res.body.dump();
      throw tooLarge(kind);
    }
    return parseRatioFile(await readCapped(res.body, MAX_FILE_BYTES));
  } catch (err) {
    throw failure(kind, err);
  }
}

interface Cached {
  at: number;
  /** The fetch settings it was fetched under: a change of them fetches again. */
  policy: OutboundPolicy;
  answer: Promise<PresetAnswer>;
}
/** What fetching presets reads: the preset base URL and the fetch settings of the outbound guard. */
export type PresetDeps = Pick<AppContext, 'config' | 'options'>;

/** One cache per application context (the deps object routes pass is the context itself). */
const caches = new WeakMap<PresetDeps, Map<string, Cached>>();

/**
 * The model and completion ratios of a preset source (official: the mixed source), fetched through the outbound
 * guard and kept CACHE_MS per URL (and fetch settings); concurrent calls share one fetch and failures are not kept.
 */
export function presetRatios(
  deps: PresetDeps,
  requested: PresetSource | 'official',
  now = Date.now(),
): Promise<PresetAnswer> {
  const source = requested === 'official' ? OFFICIAL_SOURCE : requested;
  const files = presetFiles(deps.config.ratioPresetBaseUrl, source);
  const key = `${files.prompt ?? ''}\n${files.completion}`;
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = new Map()));
  const policy = fetchPolicy(deps.options);
  const hit = cache.get(key);
  if (hit && hit.policy === policy && now - hit.at < CACHE_MS) return hit.answer;
  const dispatcher = guardedDispatcher(() => fetchPolicy(deps.options));
  const answer = (async (): Promise<PresetAnswer> => {
    const [prompt, completion] = await Promise.all([
      files.prompt ? fetchFile(files.prompt, 'prompt', dispatcher) : Promise.resolve({}),
      fetchFile(files.completion!, 'completion', dispatcher),
    ]);
    return { source, model_ratio: prompt, completion_ratio: completion, fetched_at: nowSeconds() };
  })();
  const entry = { at: now, policy, answer };
  cache.set(key, entry);
  answer.catch(() => {
    if (cache.get(key) === entry) cache.delete(key);
  });
  return answer;
}
