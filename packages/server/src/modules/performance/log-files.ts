// The log files this server writes in LOG_DIR: listed and cleaned up there only, by name pattern and kind.
import fs from 'node:fs/promises';
import path from 'node:path';
import { LOG_FILE_PATTERN } from '../../log-file.js';

/** Directory entries looked at, at most (a directory holding more is read only that far). */
const MAX_ENTRIES = 10_000;
const DAY_MS = 86_400_000;

export interface LogFile {
  name: string;
  size: number;
  /** RFC 3339 time of the last write. */
  mod_time: string;
}

interface Found extends LogFile {
  mtimeMs: number;
}

/**
 * Regular files of `dir` named like this server's log files (tollway-<YYYYMMDDHHMMSS>.log), newest name first.
 * Links, directories and other names are never listed, so nothing outside the directory is reached.
 */
export async function logFilesIn(dir: string): Promise<Found[]> {
  const handle = await fs.opendir(dir);
  const found: Found[] = [];
  let seen = 0;
  for await (const e of handle) {
    if (++seen > MAX_ENTRIES) break;
    if (!e.isFile() || !LOG_FILE_PATTERN.test(e.name)) continue;
    const st = await fs.lstat(path.join(dir, e.name)).catch(() => undefined);
    if (!st?.isFile()) continue;
    found.push({ name: e.name, size: st.size, mod_time: new Date(st.mtimeMs).toISOString(), mtimeMs: st.mtimeMs });
  }
  return found.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

export interface LogListing {
  log_dir: string;
  enabled: boolean;
  file_count: number;
  total_size: number;
  oldest_time?: string;
  newest_time?: string;
  files: LogFile[];
}

/** new-api's listing: the directory, the files and their totals; enabled false when LOG_DIR is not set. */
export async function listLogFiles(dir: string): Promise<LogListing> {
  if (!dir) return { log_dir: '', enabled: false, file_count: 0, total_size: 0, files: [] };
  const found = await logFilesIn(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const times = found.map((f) => f.mtimeMs);
  return {
    log_dir: dir,
    enabled: true,
    file_count: found.length,
    total_size: found.reduce((n, f) => n + f.size, 0),
    ...(found.length
      ? {
          oldest_time: new Date(Math.min(...times)).toISOString(),
          newest_time: new Date(Math.max(...times)).toISOString(),
        }
      : {}),
    files: found.map(({ name, size, mod_time }) => ({ name, size, mod_time })),
  };
}

export type CleanupMode = 'by_count' | 'by_days';

export interface CleanupResult {
  deleted_count: number;
  freed_bytes: number;
  failed_files: string[];
}

/**
 * Deletes this server's old log files in `dir`: by_count keeps the `value` newest, by_days those written in the
 * last `value` days. The file being written now (`active`) is always kept.
 */
export async function cleanupLogFiles(
  dir: string,
  mode: CleanupMode,
  value: number,
  active: string | undefined,
  now = Date.now(),
): Promise<CleanupResult> {
  const found = await logFilesIn(dir);
  const cutoff = now - value * DAY_MS;
  const doomed = found.filter(
    (f, i) => path.join(dir, f.name) !== active && (mode === 'by_count' ? i >= value : f.mtimeMs < cutoff),
  );
  const result: CleanupResult = { deleted_count: 0, freed_bytes: 0, failed_files: [] };
  for (const f of doomed) {
    try {
      await fs.unlink(path.join(dir, f.name));
      result.deleted_count++;
      result.freed_bytes += f.size;
    } catch {
      result.failed_files.push(f.name);
    }
  }
  return result;
}
