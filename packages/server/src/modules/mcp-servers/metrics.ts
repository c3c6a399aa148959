import { Counter, Gauge, Histogram } from 'prom-client';
import { BoundedLabel, CHANNEL_HEALTH_VALUE, metrics, type ChannelHealthState } from '../../lib/metrics.js';
import { MCP_SERVERS_MAX } from './store.js';

/** Seconds: a whole tool call, progress included. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800];

/** Server names labelled before the rest read `other` (names come from the registry; renames add new ones). */
const serverLabel = new BoundedLabel(MCP_SERVERS_MAX * 2);

const toolCalls = new Counter({
  name: 'tollway_mcp_tool_calls_total',
  help: 'MCP tool calls by server and status: ok, tool_error (the tool said isError), error (the upstream failed), cancelled, unavailable (refused while the server breaker was open)',
  labelNames: ['server', 'status'] as const,
  registers: [metrics],
});

const toolCallDuration = new Histogram({
  name: 'tollway_mcp_tool_call_duration_seconds',
  help: 'MCP tool call duration until its answer (or failure), by server and status',
  labelNames: ['server', 'status'] as const,
  buckets: DURATION_BUCKETS,
  registers: [metrics],
});

const health = new Gauge({
  name: 'tollway_mcp_server_health_state',
  help: 'Circuit breaker state per MCP server: 0 closed (healthy), 1 half-open (probing), 2 open (cooling down)',
  labelNames: ['server'] as const,
  registers: [metrics],
});

const transitions = new Counter({
  name: 'tollway_mcp_breaker_transitions_total',
  help: 'MCP server breaker state changes made on this node, by server and new state',
  labelNames: ['server', 'state'] as const,
  registers: [metrics],
});

/** Counts one tool call that ended (`ms`: its duration; undefined for a refusal, which has none). */
export function countMcpToolCall(server: string, status: string, ms?: number): void {
  const label = serverLabel.of(server);
  toolCalls.labels(label, status).inc();
  if (ms !== undefined) toolCallDuration.labels(label, status).observe(ms / 1000);
}

/** Sets a server's breaker state on the health gauge (`changed`: a change made here, counted). */
export function setMcpServerHealth(server: string, state: ChannelHealthState, changed: boolean): void {
  const label = serverLabel.of(server);
  health.labels(label).set(CHANNEL_HEALTH_VALUE[state]);
  if (changed) transitions.labels(label, state).inc();
}

/** Drops a removed (or renamed) server's health series. */
export function clearMcpServerHealth(server: string): void {
  health.remove(serverLabel.of(server));
}
