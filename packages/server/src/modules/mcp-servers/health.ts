import type { McpServerHealth } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { PROBE_LEASE_MS } from '../../core/routing/breaker.js';
import { BreakerSettingsCache, type BreakerSettings } from '../../core/routing/breaker-settings.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { perContext } from '../../per-context.js';
import { clearMcpServerHealth, setMcpServerHealth } from './metrics.js';
import { MCP_SERVERS_MAX } from './store.js';

export type McpBreakerState = McpServerHealth['state'];
/** How a request to an upstream server ended for its health: it failed, it was answered, or no verdict. */
export type McpOutcome = 'failure' | 'success' | 'neutral';

/** Longest last error kept (and answered). */
const MAX_ERROR = 300;
/** Cluster bus topic of MCP breaker openings and closings. */
const TOPIC = 'mcp_breaker';
const SECOND = 1000;

/** A server as its breaker knows it. */
export interface McpServerRef {
  id: number;
  name: string;
}

interface ServerBreaker {
  name: string;
  state: McpBreakerState;
  /** Failures in a row since the last answer. */
  failures: number;
  /** Openings since it last closed (the cool-down doubles with each). */
  opens: number;
  /** Epoch ms the cool-down ends (open). */
  until: number;
  /** Half-open: when the probe went out (0: none out). */
  probeSince: number;
  lastError: string;
  lastErrorAt: number;
  lastSuccessAt: number;
}

const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g;
const IPV6 = /\[?\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{0,4}\b\]?(?::\d{1,5})?/gi;

const isHttpStatus = (v: unknown): v is number => typeof v === 'number' && v >= 100 && v <= 599;

/**
 * An error's text for the health answer: the HTTP status of a transport error, its cause's message too (undici's
 * "fetch failed"), network addresses left out, short.
 */
export function healthError(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; cause?: { message?: unknown } } | undefined;
  const status = isHttpStatus(e?.code) ? `HTTP ${e.code}: ` : '';
  const head = typeof e?.message === 'string' ? e.message : String(err);
  const cause = typeof e?.cause?.message === 'string' ? `: ${e.cause.message}` : '';
  return `${status}${head}${cause}`.replace(IPV4, '<address>').replace(IPV6, '<address>').slice(0, MAX_ERROR);
}

/**
 * Each upstream MCP server's circuit breaker, like a channel's (docs/operating/mcp.md, "Health"): failures in a
 * row (connection failures, upstream errors; not a tool's isError answer, not a cancellation) reaching
 * ChannelBreakerMinFailures open it for ChannelBreakerCooldownSeconds (doubled by each failed probe, at most
 * ChannelBreakerMaxCooldownSeconds); while open the server is left out of lists and its calls are refused; then
 * one request goes through as a probe: answered, it closes; failed, it opens again. Openings and closings are told
 * to the other nodes over the cluster bus; counts and probes are this node's.
 */
export class McpHealth {
  private readonly servers = new BoundedMap<number, ServerBreaker>({ maxEntries: MCP_SERVERS_MAX });
  private readonly settings: BreakerSettingsCache;

  constructor(
    private readonly ctx: AppContext,
    private readonly clock: () => number = Date.now,
  ) {
    this.settings = new BreakerSettingsCache(ctx.options);
    ctx.bus.subscribe(TOPIC, (message) => this.applyRemote(message));
  }

  /**
   * Whether a request may go to the server now. Open: no, until the cool-down ends; then the breaker half-opens and
   * this request is its probe. Half-open: no while the probe is out (given again after PROBE_LEASE_MS of silence).
   */
  admit(server: McpServerRef): boolean {
    const b = this.servers.get(server.id);
    if (!b || b.state === 'closed' || !this.settings.get().enabled) return true;
    const now = this.clock();
    if (b.state === 'open') {
      if (now < b.until) return false;
      this.change(server.id, b, 'half_open', true);
    } else if (b.probeSince && now - b.probeSince < PROBE_LEASE_MS) return false;
    b.probeSince = now;
    return true;
  }

  /** Seconds until an open breaker lets a probe through (0 when it is not open). */
  retryAfter(id: number): number {
    const b = this.servers.get(id);
    return b?.state === 'open' ? Math.max(1, Math.ceil((b.until - this.clock()) / SECOND)) : 0;
  }

  /** A request's outcome (`error`: a failure's text, see healthError). */
  record(server: McpServerRef, outcome: McpOutcome, error = ''): void {
    const s = this.settings.get();
    if (!s.enabled) return;
    let b = this.servers.get(server.id);
    if (outcome === 'neutral') {
      if (b?.state === 'half_open') b.probeSince = 0;
      return;
    }
    const now = this.clock();
    if (outcome === 'success') {
      if (!b) return;
      b.failures = 0;
      b.lastSuccessAt = now;
      if (b.state === 'half_open') this.close(server.id, b, true);
      return;
    }
    b ??= this.create(server);
    b.failures++;
    b.lastError = error.slice(0, MAX_ERROR);
    b.lastErrorAt = now;
    if (b.state === 'half_open' || (b.state === 'closed' && b.failures >= s.minFailures)) this.open(server.id, b, s);
  }

  /** Closes the server's breaker (it was edited: new address or credentials), here and on the other nodes. */
  reset(id: number): void {
    const b = this.servers.get(id);
    if (b && b.state !== 'closed') this.close(id, b, true);
    if (b) b.failures = 0;
  }

  /** Drops a removed server's breaker and its health series. */
  forget(id: number): void {
    const b = this.servers.get(id);
    if (b) clearMcpServerHealth(b.name);
    this.servers.delete(id);
  }

  /** The server's health for the management API. */
  health(server: McpServerRef): McpServerHealth {
    const b = this.servers.get(server.id);
    const s = this.settings.get();
    const enabled = s.enabled;
    const now = this.clock();
    const state: McpBreakerState =
      !b || !enabled ? 'closed' : b.state === 'open' && now >= b.until ? 'half_open' : b.state;
    const secs = (ms: number) => (ms ? Math.ceil(ms / SECOND) : 0);
    return {
      id: server.id,
      name: server.name,
      state,
      consecutive_failures: b?.failures ?? 0,
      failure_threshold: s.minFailures,
      open_until: state === 'open' ? secs(b!.until) : 0,
      opens: b?.opens ?? 0,
      last_error: b?.lastError ?? '',
      last_error_at: secs(b?.lastErrorAt ?? 0),
      last_success_at: secs(b?.lastSuccessAt ?? 0),
      breaker_enabled: enabled,
    };
  }

  private create(server: McpServerRef): ServerBreaker {
    const b: ServerBreaker = {
      name: server.name,
      state: 'closed',
      failures: 0,
      opens: 0,
      until: 0,
      probeSince: 0,
      lastError: '',
      lastErrorAt: 0,
      lastSuccessAt: 0,
    };
    this.servers.set(server.id, b);
    return b;
  }

  private open(id: number, b: ServerBreaker, s: BreakerSettings): void {
    b.opens++;
    b.until = this.clock() + Math.min(s.cooldownMs * 2 ** (b.opens - 1), s.maxCooldownMs);
    this.change(id, b, 'open', true);
  }

  private close(id: number, b: ServerBreaker, local: boolean): void {
    b.opens = 0;
    b.until = 0;
    this.change(id, b, 'closed', local);
  }

  /** A new state: the gauge follows; a change made here is counted and told to the other nodes. */
  private change(id: number, b: ServerBreaker, state: McpBreakerState, local: boolean): void {
    b.state = state;
    b.probeSince = 0;
    setMcpServerHealth(b.name, state, local);
    if (local && state !== 'half_open')
      void this.ctx.bus
        .publish(TOPIC, `${id}|${state}|${b.until}|${b.opens}|${b.name}`)
        .catch((err: unknown) => this.ctx.log.warn({ err }, 'MCP breaker: cluster bus publish failed'));
  }

  /** Another node opened or closed a server's breaker. */
  private applyRemote(message: string): void {
    const [idText, state, untilText, opensText, name = ''] = message.split('|');
    const id = Number(idText);
    const until = Number(untilText);
    const opens = Number(opensText);
    if (!Number.isSafeInteger(id) || !Number.isFinite(until) || !Number.isFinite(opens)) return;
    let b = this.servers.get(id);
    if (state === 'closed') {
      if (b && b.state !== 'closed') this.close(id, b, false);
      if (b) b.failures = 0;
      return;
    }
    if (state !== 'open') return;
    b ??= this.create({ id, name });
    if (b.state === 'open' && b.until >= until) return;
    b.until = until;
    b.opens = Math.max(b.opens, opens);
    this.change(id, b, 'open', false);
  }
}

/** The node's MCP server breakers. */
export const mcpHealthOf = perContext((ctx) => new McpHealth(ctx));
