import { Counter, Gauge, Histogram } from 'prom-client';
import { countStorageError, metrics } from '../lib/metrics.js';
import type { WriterHealth } from './health.js';

/** Records per committed batch. */
const BATCH_BUCKETS = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500];

/** The writer the gauges read at scrape time (the latest started; nothing is recorded per call). */
let watched: { health(): WriterHealth & { openCalls: number } } | undefined;

new Gauge({
  name: 'tollway_writer_queue_depth',
  help: 'Records queued in the durable writer and not committed to the database yet',
  registers: [metrics],
  collect() {
    this.set(watched?.health().backlog ?? 0);
  },
});
new Gauge({
  name: 'tollway_writer_journal_lag_seconds',
  help: 'How long the oldest record not committed yet has waited in the journal',
  registers: [metrics],
  collect() {
    this.set((watched?.health().lagMs ?? 0) / 1000);
  },
});
new Gauge({
  name: 'tollway_writer_failures_in_a_row',
  help: 'Writer batches that failed since the last one committed (retried with back-off)',
  registers: [metrics],
  collect() {
    this.set(watched?.health().failures ?? 0);
  },
});
new Gauge({
  name: 'tollway_relay_reservations_in_flight',
  help: 'Relay calls holding a quota reservation (opened in the journal, not settled or refunded yet)',
  registers: [metrics],
  collect() {
    this.set(watched?.health().openCalls ?? 0);
  },
});
const batchSize = new Histogram({
  name: 'tollway_writer_batch_size',
  help: 'Records per committed writer batch',
  buckets: BATCH_BUCKETS,
  registers: [metrics],
});
const batches = new Counter({
  name: 'tollway_writer_batches_total',
  help: 'Writer batches by outcome',
  labelNames: ['outcome'] as const,
  registers: [metrics],
});

/** The writer's hooks and gauges. */
export const writerMetrics = {
  watch(writer: NonNullable<typeof watched>): void {
    watched = writer;
  },
  unwatch(writer: NonNullable<typeof watched>): void {
    if (watched === writer) watched = undefined;
  },
  committed(records: number): void {
    batchSize.observe(records);
    batches.labels('committed').inc();
  },
  failed(): void {
    batches.labels('failed').inc();
    countStorageError('database', 'writer_batch');
  },
};
