import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Logger } from 'pino';

/** A window of the event loop counts as idle below this share of busy time (2%: 200 ms in 10 s). */
export const IDLE_UTILIZATION = 0.02;
const MB = 1024 * 1024;
/** Heap memory held beyond what is in use, below which a release is not worth its pause. */
export const MIN_RELEASABLE_BYTES = 32 * MB;

interface GcOptions {
  type: 'major';
  execution: 'sync';
  flavor: 'last-resort';
}
type GcFunction = (options: GcOptions) => void;

/**
 * V8's gc(), taken from a fresh context with --expose-gc set only for as long as that takes: the process's own
 * global object never gets a `gc`.
 */
function memoryReducingGc(): GcFunction {
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as GcFunction;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

let sharedGc: GcFunction | undefined;

/**
 * Runs V8's memory-reducing full collection once, now (the performance panel's "GC"): a pause of 0.1–0.3 s in
 * which nothing else runs. The process's global object still gets no `gc`.
 */
export function collectGarbageNow(): void {
  sharedGc ??= memoryReducingGc();
  sharedGc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** V8's young generation: what a burst grows, and where an idle process's last allocations lie as garbage. */
const YOUNG_SPACES: ReadonlySet<string> = new Set(['new_space', 'new_large_object_space']);

/**
 * Heap memory a memory-reducing collection can give back: what V8 holds committed beyond what its objects use,
 * counting the young generation's contents as garbage. They nearly all are once the process is idle (what lives on
 * is promoted), and an idle process runs no scavenge to find that out: after a burst its young generation can
 * still hold 40–60 MB of dead objects, which `used_heap_size` counts as in use, so the committed memory beyond use
 * alone could stay under the threshold for as long as the process stays idle.
 */
function releasableHeapBytes(): number {
  const heap = v8.getHeapStatistics();
  let young = 0;
  for (const space of v8.getHeapSpaceStatistics())
    if (YOUNG_SPACES.has(space.space_name)) young += space.space_used_size;
  return heap.total_physical_size - heap.used_heap_size + young;
}

export interface IdleMemoryReleaseOptions {
  /** How long the event loop must have been idle; also how often it is checked. */
  idleMs: number;
  log: Logger;
  /** Heap held beyond use that makes a release worth it (default MIN_RELEASABLE_BYTES). */
  minReleasableBytes?: number;
}

export interface IdleMemoryRelease {
  /** Releases so far. */
  readonly releases: number;
  stop(): void;
}

/**
 * Gives memory back to the system once a burst of calls is over. V8 grows its young generation under a high
 * allocation rate (to 100 MB while 10,000 connections each made a call) and keeps it while idle: on Node 24 its
 * memory reducer judges the allocation rate high whenever the C++ heap (where `vm` contexts live) allocated nothing,
 * and releases only through its watchdog, about 100 s after the last full collection (nodejs/node#66564), so an
 * idle node held the peak's memory longer than idle connections live. After a window of `idleMs` with the event loop
 * idle, when the heap holds at least `minReleasableBytes` beyond what it uses, this runs V8's memory-reducing
 * collection once: a pause of 0.1–0.3 s (nothing else runs during it), and code recompiled on the next calls (a few
 * ms each for the first dozens). It runs again only once a later burst leaves that much more unused than the last
 * release did.
 *
 * The `vm` context made here to take `gc` is such a C++ allocation: for a while after it V8's own reducer works again
 * and often releases the memory first; this release then finds nothing to do.
 */
export function startIdleMemoryRelease(options: IdleMemoryReleaseOptions): IdleMemoryRelease {
  const minReleasable = options.minReleasableBytes ?? MIN_RELEASABLE_BYTES;
  const gc = memoryReducingGc();
  let releases = 0;
  // What the heap held unused right after the last release (V8 11, Node 20's, keeps its young generation's 32 MB).
  let floor = 0;
  let windowStart: EventLoopUtilization = performance.eventLoopUtilization();
  const check = () => {
    const window = performance.eventLoopUtilization(windowStart);
    windowStart = performance.eventLoopUtilization();
    if (window.utilization >= IDLE_UTILIZATION) return;
    const unused = releasableHeapBytes();
    if (unused - floor < minReleasable) return;
    const rssBefore = process.memoryUsage.rss();
    const started = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const pauseMs = performance.now() - started;
    releases++;
    // The collection's own pause is not load: the next window starts after it.
    windowStart = performance.eventLoopUtilization();
    floor = releasableHeapBytes();
    const rssAfter = process.memoryUsage.rss();
    options.log.info(
      {
        unused_heap_mb: Math.round(unused / MB),
        rss_before_mb: Math.round(rssBefore / MB),
        rss_after_mb: Math.round(rssAfter / MB),
        pause_ms: Math.round(pauseMs),
      },
      'idle: released unused memory',
    );
  };
  const timer = setInterval(check, options.idleMs).unref();
  return {
    get releases() {
      return releases;
    },
    stop: () => clearInterval(timer),
  };
}
