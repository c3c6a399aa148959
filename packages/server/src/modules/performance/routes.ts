import { ErrorCode } from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { coded } from '../../lib/errors.js';
import { activeLogFile } from '../../log-file.js';
import { cleanupLogFiles, listLogFiles } from './log-files.js';
import { resetRuntimeCounters } from './runtime-stats.js';
import { cleanupQuery, cleanupResult, logListing, statsAnswer } from './schema.js';
import { collectGarbage, performanceStats } from './service.js';

/** The performance panel of new-api's console (root only). */
export function performanceRoutes(r: Router): void {
  const tags = ['performance'];
  r.add({
    method: 'GET',
    url: '/api/performance/stats',
    level: 'root',
    summary:
      "Memory (heap, resident), garbage collections, event loop delay, open connections, database pool and size, caches: new-api's fields where they map",
    tags,
    response: statsAnswer,
    handler: ({ ctx, req }) => performanceStats(ctx, req.server.server),
  });
  r.add({
    method: 'POST',
    url: '/api/performance/reset_stats',
    level: 'root',
    summary: 'Starts the counted statistics (garbage collections, event loop delay and use) again from now',
    tags,
    successMessage: 'statistics reset',
    handler: () => resetRuntimeCounters(),
  });
  r.add({
    method: 'POST',
    url: '/api/performance/gc',
    level: 'root',
    summary:
      "Runs V8's memory-reducing full collection once (a pause of 0.1–0.3 s); answers the memory before and after",
    tags,
    successMessage: 'GC executed',
    handler: () => collectGarbage(),
  });
  r.add({
    method: 'DELETE',
    url: '/api/performance/disk_cache',
    level: 'root',
    summary: 'Clears the disk cache of request bodies: Tollway keeps none, so there is nothing to clear',
    tags,
    successMessage: 'Tollway keeps no disk cache: nothing to clear',
    handler: () => undefined,
  });
  r.add({
    method: 'GET',
    url: '/api/performance/logs',
    level: 'root',
    summary: "This server's log files in LOG_DIR (tollway-<time>.log), newest first; enabled false without LOG_DIR",
    tags,
    response: logListing,
    handler: ({ ctx }) => listLogFiles(ctx.config.logDir),
  });
  r.add({
    method: 'DELETE',
    url: '/api/performance/logs',
    level: 'root',
    summary:
      "Deletes this server's old log files in LOG_DIR: mode=by_count keeps the `value` newest, mode=by_days those of the last `value` days; the file being written is kept",
    tags,
    query: cleanupQuery,
    response: cleanupResult,
    handler: async ({ ctx, query }) => {
      const dir = ctx.config.logDir;
      if (!dir) throw coded(ErrorCode.LogDirNotConfigured, 'no log directory is configured (LOG_DIR)');
      const result = await cleanupLogFiles(dir, query.mode, query.value, activeLogFile());
      const failed = result.failed_files.length;
      if (failed > 0)
        throw coded(
          ErrorCode.LogCleanupPartial,
          `some log files could not be deleted (${failed}/${failed + result.deleted_count})`,
          { failed, attempted: failed + result.deleted_count },
        );
      return result;
    },
  });
}
