import { z } from 'zod';

/** Longest count or number of days a clean-up takes (100 years). */
export const MAX_CLEANUP_VALUE = 36_500;

export const cleanupQuery = z.object({
  /** by_count keeps the `value` newest files; by_days those written in the last `value` days. */
  mode: z.enum(['by_count', 'by_days']),
  value: z.coerce.number().int().min(1).max(MAX_CLEANUP_VALUE),
});

const logFile = z.object({ name: z.string(), size: z.number(), mod_time: z.string() });
export const logListing = z.object({
  /** LOG_DIR; empty when not set. */
  log_dir: z.string(),
  enabled: z.boolean(),
  file_count: z.number(),
  total_size: z.number(),
  oldest_time: z.string().optional(),
  newest_time: z.string().optional(),
  files: z.array(logFile),
});

export const cleanupResult = z.object({
  deleted_count: z.number(),
  freed_bytes: z.number(),
  failed_files: z.array(z.string()),
});

const numbers = z.record(z.string(), z.number());
export const statsAnswer = z.object({
  cache_stats: numbers,
  memory_stats: z.object({
    alloc: z.number(),
    total_alloc: z.number(),
    sys: z.number(),
    num_gc: z.number(),
    num_goroutine: z.number(),
  }),
  disk_cache_info: z.object({ path: z.string(), exists: z.boolean(), file_count: z.number(), total_size: z.number() }),
  disk_space_info: z.object({ total: z.number(), free: z.number(), used: z.number(), used_percent: z.number() }),
  config: z.record(z.string(), z.union([z.number(), z.boolean(), z.string()])),
  process: z.record(z.string(), z.union([z.number(), z.string()])),
  event_loop: numbers,
  connections: z.object({ open: z.number() }),
  database: z.object({
    dialect: z.string(),
    size_bytes: z.number(),
    pool: z.object({ max: z.number(), total: z.number(), idle: z.number(), waiting: z.number() }).nullable(),
    separate_log_database: z.boolean(),
  }),
  caches: numbers,
  stats_since: z.number(),
});
