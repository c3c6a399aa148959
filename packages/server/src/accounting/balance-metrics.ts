import { Counter, Gauge } from 'prom-client';
import { metrics } from '../lib/metrics.js';

/** What the Redis ledger's reconciliation reports. */
export const balanceMetrics = {
  repairs: new Counter({
    name: 'tollway_balance_repairs_total',
    help: 'Redis balances found off the database truth plus live leases and repaired',
    labelNames: ['kind'] as const,
    registers: [metrics],
  }),
  driftRepaired: new Counter({
    name: 'tollway_balance_drift_repaired_quota_total',
    help: 'Absolute quota by which repaired Redis balances were off',
    labelNames: ['kind'] as const,
    registers: [metrics],
  }),
  passes: new Counter({
    name: 'tollway_balance_reconcile_passes_total',
    help: 'Completed reconciliation passes over every Redis balance (run by the leader node)',
    registers: [metrics],
  }),
  liveNodes: new Gauge({
    name: 'tollway_cluster_live_nodes',
    help: 'Nodes with a recent heartbeat, as this node last saw them',
    registers: [metrics],
  }),
};
