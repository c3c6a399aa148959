// The performance panel (new-api's shape): this process's memory, event loop, connections, database and caches.
import fs from 'node:fs';
import type { Server } from 'node:http';
import v8 from 'node:v8';
import type { AppContext } from '../../context.js';
import { collectGarbageNow } from '../../lib/idle-memory.js';
import { runtimeCounters } from './runtime-stats.js';
import { databaseBytes } from './store.js';

const MB = 1024 * 1024;

/** True inside a container (Docker, containerd, Kubernetes). */
function inContainer(): boolean {
  if (fs.existsSync('/.dockerenv')) return true;
  try {
    return /docker|kubepods|containerd|libpod/.test(fs.readFileSync('/proc/1/cgroup', 'utf8'));
  } catch {
    return false;
  }
}

/** Space of the disk holding the data directory (numbers only, no path). */
function diskSpace(dir: string) {
  try {
    const s = fs.statfsSync(dir);
    const total = s.blocks * s.bsize;
    const free = s.bavail * s.bsize;
    const used = total - s.bfree * s.bsize;
    return { total, free, used, used_percent: total > 0 ? Math.round((used / total) * 10_000) / 100 : 0 };
  } catch {
    return { total: 0, free: 0, used: 0, used_percent: 0 };
  }
}

const openConnections = (server: Server) =>
  new Promise<number>((resolve) => server.getConnections((err, n) => resolve(err ? 0 : n)));

/** GET /api/performance/stats: new-api's fields where they map (Go's terms read as Node's), then Tollway's own. */
export async function performanceStats(ctx: AppContext, server: Server) {
  const mem = process.memoryUsage();
  const heap = v8.getHeapStatistics();
  const counters = runtimeCounters();
  const o = ctx.options;
  return {
    // Tollway keeps no request bodies on disk nor in a cache of its own: these are new-api's, always zero.
    cache_stats: {
      active_disk_files: 0,
      current_disk_usage_bytes: 0,
      active_memory_buffers: 0,
      current_memory_usage_bytes: 0,
      disk_cache_hits: 0,
      memory_cache_hits: 0,
      disk_cache_max_bytes: 0,
      disk_cache_threshold_bytes: 0,
    },
    memory_stats: {
      /** Heap in use by objects. */
      alloc: mem.heapUsed,
      /** Heap V8 has reserved. */
      total_alloc: mem.heapTotal,
      /** Resident set: all the memory the process holds. */
      sys: mem.rss,
      num_gc: counters.gc_count,
      /** Node has no goroutines: the handles and requests keeping the event loop busy (sockets, timers, files). */
      num_goroutine: process.getActiveResourcesInfo().length,
    },
    disk_cache_info: { path: '', exists: false, file_count: 0, total_size: 0 },
    disk_space_info: diskSpace(ctx.config.dataDir),
    config: {
      disk_cache_enabled: false,
      disk_cache_threshold_mb: o.num('performance_setting.disk_cache_threshold_mb'),
      disk_cache_max_size_mb: o.num('performance_setting.disk_cache_max_size_mb'),
      disk_cache_path: '',
      is_running_in_container: inContainer(),
      monitor_enabled: false,
      monitor_cpu_threshold: 0,
      monitor_memory_threshold: 0,
      monitor_disk_threshold: 0,
    },
    process: {
      uptime_seconds: Math.floor(process.uptime()),
      started_at: Math.floor(ctx.startedAt / 1000),
      node_version: process.version,
      heap_limit: heap.heap_size_limit,
      external: mem.external,
      array_buffers: mem.arrayBuffers,
      gc_pause_ms: counters.gc_pause_ms,
    },
    event_loop: counters.event_loop,
    connections: { open: await openConnections(server) },
    database: {
      dialect: ctx.db.dialect,
      size_bytes: await databaseBytes(ctx.db).catch(() => 0),
      pool: ctx.db.poolStats?.() ?? null,
      separate_log_database: ctx.logDb !== ctx.db,
    },
    caches: {
      channels: ctx.channelCache.all().length,
      models: ctx.channelCache.allModels().length,
    },
    stats_since: counters.since,
  };
}

/** POST /api/performance/gc: a memory-reducing full collection; the heap and resident memory before and after. */
export function collectGarbage() {
  const before = process.memoryUsage();
  collectGarbageNow();
  const after = process.memoryUsage();
  return {
    heap_used_before_mb: Math.round(before.heapUsed / MB),
    heap_used_after_mb: Math.round(after.heapUsed / MB),
    rss_before_mb: Math.round(before.rss / MB),
    rss_after_mb: Math.round(after.rss / MB),
  };
}
