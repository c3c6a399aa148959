import path from 'node:path';
import { TrustedProxies } from './lib/trusted-proxies.js';

/** Configuration read from the environment; names follow new-api's where they exist. */
export interface Config {
  port: number;
  sqlDsn: string;
  sqlitePath: string;
  logSqlDsn: string;
  redisConnString: string;
  /** Prefix of every Redis key and channel (several deployments or test runs can share one Redis). */
  redisKeyPrefix: string;
  /** Seconds between reconciliations of the Redis balances with the database (REDIS_RECONCILE_INTERVAL). */
  redisReconcileInterval: number;
  /** Bearer token that opens GET /metrics (METRICS_TOKEN); without it there is no /metrics. */
  metricsToken: string | undefined;
  /** A port of its own for GET /metrics (METRICS_PORT; absent: none), on METRICS_HOST (default 127.0.0.1). */
  metricsPort: number | undefined;
  metricsHost: string;
  /** OTLP/HTTP traces URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces); absent: no tracing. */
  otlpTracesEndpoint: string | undefined;
  /** The service name spans carry (OTEL_SERVICE_NAME, default tollway). */
  otelServiceName: string;
  /** Which calls are traced (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; default parentbased_always_on). */
  otelTracesSampler: TracesSampler;
  /**
   * Whether a caller's traceparent is believed: the call joins the caller's trace and its sampled flag counts
   * (OTEL_TRUST_CALLER_SAMPLING; default false: every call starts its own trace, the operator's sampler decides).
   */
  otelTrustCallerSampling: boolean;
  sessionSecret: string | undefined;
  cryptoSecret: string | undefined;
  /** MCP_STDIO_ENABLED: registered MCP servers may be local programs started over stdio (docs/operating/mcp.md). */
  mcpStdioEnabled: boolean;
  nodeType: 'master' | 'slave';
  syncFrequency: number;
  /** Minutes between background tests of auto-disabled channels (0: off). */
  channelTestFrequency: number;
  streamingTimeout: number;
  /** Connections per upstream origin; 0 no limit (RELAY_MAX_CONNS_PER_HOST; a channel's setting.max_conns_per_host overrides). */
  relayMaxConnsPerHost: number;
  /** HTTP/2 to upstreams that offer it (RELAY_HTTP2_ENABLED; a channel's setting.http2_enabled overrides). */
  relayHttp2: boolean;
  /** Milliseconds between passes of the task poller (TASK_POLL_INTERVAL_MS). */
  taskPollIntervalMs: number;
  /** Minutes after which an unfinished task fails with a refund; 0 never (TASK_TIMEOUT_MINUTES). */
  taskTimeoutMinutes: number;
  /**
   * TRUST_PROXY: the reverse proxies whose X-Forwarded-For is believed (true: one hop, a hop count, or a list of
   * addresses and CIDR ranges); the client address is the right-most entry none of them wrote.
   */
  trustProxy: TrustedProxies;
  /** Seconds a realtime WebSocket session may pass without a frame either way before it is closed. */
  realtimeIdleTimeout: number;
  bodyLimit: number;
  /** Bytes of multipart upload spools one user may have on disk at once (UPLOAD_SPOOL_CALLER_MB, default 128). */
  uploadSpoolCallerBytes: number;
  /** Bytes of multipart upload spools the whole process may have on disk at once (UPLOAD_SPOOL_TOTAL_MB, default 1024). */
  uploadSpoolTotalBytes: number;
  /** Seconds a client may take to send the request headers (HTTP_HEADERS_TIMEOUT). */
  headersTimeout: number;
  /** Seconds a client may take to send a whole request, headers and body; 0 off (HTTP_REQUEST_TIMEOUT). */
  requestTimeout: number;
  /** Seconds a request body may pause between two pieces; 0 off (HTTP_BODY_IDLE_TIMEOUT). */
  bodyIdleTimeout: number;
  /** Bytes per second a request body must keep on average once its grace has passed; 0 off (HTTP_BODY_MIN_RATE). */
  bodyMinRate: number;
  /** Seconds a request body may take before its rate counts (HTTP_BODY_MIN_RATE_GRACE). */
  bodyMinRateGrace: number;
  criticalRateLimit: number;
  criticalRateLimitDuration: number;
  dataDir: string;
  /** When the writer's journal reaches the disk itself (JOURNAL_FSYNC): always, interval (default) or off. */
  journalFsync: 'always' | 'interval' | 'off';
  /** Milliseconds between background fsyncs of the journal with JOURNAL_FSYNC=interval (JOURNAL_FSYNC_INTERVAL_MS). */
  journalFsyncIntervalMs: number;
  /** Seconds of an idle event loop after which unused heap memory goes back to the system; 0 never (MEMORY_RELEASE_IDLE_SECONDS). */
  memoryReleaseIdleSeconds: number;
  webDist: string;
  logLevel: string;
  /** Where a copy of the log is written, one file per start (LOG_DIR); empty: stdout only. */
  logDir: string;
  version: string;
  /**
   * IANA time zone that decides calendar days (daily check-in): TZ, else the process's zone. Empty means the
   * process's local time as the system reads a TZ that is not an IANA name (POSIX forms such as CST-8).
   */
  timeZone: string;
  /** Cloudflare Turnstile's siteverify endpoint (TURNSTILE_VERIFY_URL; tests point it at a mock). */
  turnstileVerifyUrl: string;
  /** GitHub sign-in's web and API addresses (GITHUB_BASE_URL, GITHUB_API_URL: GitHub Enterprise, tests' mock). */
  githubBaseUrl: string;
  githubApiUrl: string;
  /** LinuxDO Connect's address for sign-in (LINUXDO_BASE_URL). */
  linuxDoBaseUrl: string;
  /** OpenAI's sign-in service for Codex credentials (CODEX_OAUTH_BASE_URL; tests point it at a mock). */
  codexOAuthBaseUrl: string;
  /** Where the preset ratio files are fetched (RATIO_PRESET_BASE_URL), through the outbound guard. */
  ratioPresetBaseUrl: string;
  /** Where the model registry's catalog is fetched (SYNC_UPSTREAM_BASE, new-api's name), through the outbound guard. */
  syncUpstreamBase: string;
  /** Stripe's API (STRIPE_API_BASE; tests point it at a mock). */
  stripeApiBase: string;
  /** Creem's API (CREEM_API_BASE); unset: api.creem.io, or test-api.creem.io while CreemTestMode is on. */
  creemApiBase: string | undefined;
}

/** The standard OTEL_TRACES_SAMPLER values. */
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TracesSamplerName = (typeof TRACES_SAMPLERS)[number];

/** The operator's sampler (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG: the ratio of the *traceidratio ones). */
export interface TracesSampler {
  name: TracesSamplerName;
  ratio: number;
}

export class ConfigError extends Error {
  constructor(
    public readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(name, `must be an integer >= ${min}, got "${raw}"`);
  return n;
}

function urlVar(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^https?:\/\/[^/]/.test(raw) || !URL.canParse(raw))
    throw new ConfigError(name, `must be an http:// or https:// URL, got "${raw}"`);
  return raw;
}

const DSN_PREFIXES = ['postgres://', 'postgresql://', 'mysql://', 'mariadb://', 'sqlite:', 'file:'];

/** new-api's Go-style MySQL DSN: user:pass@tcp(host:port)/db?params */
export const GO_MYSQL_DSN = /^([^:@]*)(?::([^@]*))?@tcp\(([^)]+)\)\/([^?]*)(?:\?(.*))?$/;

export function validateDsn(name: string, dsn: string): void {
  if (dsn === '') return;
  if (GO_MYSQL_DSN.test(dsn)) return;
  if (!DSN_PREFIXES.some((p) => dsn.startsWith(p))) {
    throw new ConfigError(
      name,
      'must start with postgres://, postgresql://, mysql:// or sqlite:, or be user:pass@tcp(host:port)/db (e.g. postgres://user:pass@host:5432/db)',
    );
  }
  if (!dsn.startsWith('sqlite:') && !dsn.startsWith('file:')) {
    let url: URL;
    try {
      url = new URL(dsn);
    } catch {
      throw new ConfigError(name, 'is not a valid URL');
    }
    if (!url.hostname) throw new ConfigError(name, 'names no host (e.g. postgres://user:pass@host:5432/db)');
    if (url.pathname.replace(/\//g, '') === '')
      throw new ConfigError(name, 'names no database (e.g. postgres://user:pass@host:5432/db)');
  }
}

const MAX_RECONCILE_INTERVAL_S = 3600;
/** Apache mod_reqtimeout's defaults: body=20,MinRate=500. */
const DEFAULT_BODY_MIN_RATE = 500;
const DEFAULT_BODY_MIN_RATE_GRACE_S = 20;
const MIN_METRICS_TOKEN_LENGTH = 16;

function reconcileIntervalVar(env: NodeJS.ProcessEnv): number {
  const seconds = intVar(env, 'REDIS_RECONCILE_INTERVAL', 30, 1);
  if (seconds > MAX_RECONCILE_INTERVAL_S)
    throw new ConfigError(
      'REDIS_RECONCILE_INTERVAL',
      `must be at most ${MAX_RECONCILE_INTERVAL_S} seconds, got "${seconds}"`,
    );
  return seconds;
}

/** The OTLP traces URL: the signal's own variable as it is, else the base endpoint with /v1/traces (none with OTEL_SDK_DISABLED=true). */
function otlpTracesVar(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (traces) return urlVar(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces);
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!base) return undefined;
  return `${urlVar(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', base).replace(/\/+$/, '')}/v1/traces`;
}

function tracesSamplerVar(env: NodeJS.ProcessEnv): TracesSampler {
  const name = (env.OTEL_TRACES_SAMPLER || 'parentbased_always_on') as TracesSamplerName;
  if (!TRACES_SAMPLERS.includes(name))
    throw new ConfigError('OTEL_TRACES_SAMPLER', `must be one of ${TRACES_SAMPLERS.join(', ')}, got "${name}"`);
  const raw = env.OTEL_TRACES_SAMPLER_ARG;
  const ratio = raw === undefined || raw === '' ? 1 : Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `must be a ratio between 0 and 1, got "${raw}"`);
  return { name, ratio };
}

function metricsTokenVar(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.METRICS_TOKEN;
  if (!token) return undefined;
  if (token.length < MIN_METRICS_TOKEN_LENGTH || /\s/.test(token))
    throw new ConfigError('METRICS_TOKEN', `must be at least ${MIN_METRICS_TOKEN_LENGTH} characters without spaces`);
  return token;
}

/**
 * TZ when set (an IANA zone, optionally written :Zone), else the zone the process runs in. A TZ the process
 * itself runs under that is no IANA name (POSIX forms, :/etc/localtime) is honoured through local time ('').
 */
function timeZoneVar(env: NodeJS.ProcessEnv): string {
  const tz = env.TZ;
  if (!tz) return Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz.replace(/^:/, '') }).resolvedOptions().timeZone;
  } catch {
    if (tz === process.env.TZ) return '';
    throw new ConfigError('TZ', `must be an IANA time zone such as Asia/Shanghai or UTC, got "${tz}"`);
  }
}

function trustProxyVar(env: NodeJS.ProcessEnv): TrustedProxies {
  try {
    return TrustedProxies.parse(env.TRUST_PROXY);
  } catch (err) {
    throw new ConfigError('TRUST_PROXY', (err as Error).message);
  }
}

/**
 * The configuration from the environment. Every variable read here (and anywhere else in src/) is listed with its
 * default and meaning in environment.ts, the source of docs/install/environment.md; the docs test fails when a read
 * variable is missing there.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const sqlDsn = env.SQL_DSN ?? '';
  validateDsn('SQL_DSN', sqlDsn);
  const logSqlDsn = env.LOG_SQL_DSN ?? '';
  validateDsn('LOG_SQL_DSN', logSqlDsn);
  const sqlitePath = env.SQLITE_PATH || './data/tollway.db';
  const nodeType = (env.NODE_TYPE || 'master') as Config['nodeType'];
  if (nodeType !== 'master' && nodeType !== 'slave') throw new ConfigError('NODE_TYPE', 'must be master or slave');
  const redis = env.REDIS_CONN_STRING ?? '';
  if (redis && !/^rediss?:\/\//.test(redis))
    throw new ConfigError('REDIS_CONN_STRING', 'must start with redis:// or rediss://');
  const headersTimeout = intVar(env, 'HTTP_HEADERS_TIMEOUT', 60, 1);
  const requestTimeout = intVar(env, 'HTTP_REQUEST_TIMEOUT', 300, 0);
  const journalFsync = (env.JOURNAL_FSYNC || 'interval') as Config['journalFsync'];
  if (!['always', 'interval', 'off'].includes(journalFsync))
    throw new ConfigError('JOURNAL_FSYNC', 'must be always, interval or off');
  if (requestTimeout > 0 && headersTimeout > requestTimeout)
    throw new ConfigError('HTTP_HEADERS_TIMEOUT', `must not exceed HTTP_REQUEST_TIMEOUT (${requestTimeout})`);
  return {
    port: intVar(env, 'PORT', 3000, 0),
    sqlDsn,
    sqlitePath,
    logSqlDsn,
    redisConnString: redis,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'tollway:',
    redisReconcileInterval: reconcileIntervalVar(env),
    metricsToken: metricsTokenVar(env),
    metricsPort: env.METRICS_PORT ? intVar(env, 'METRICS_PORT', 0, 1) : undefined,
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    otlpTracesEndpoint: otlpTracesVar(env),
    otelServiceName: env.OTEL_SERVICE_NAME || 'tollway',
    otelTracesSampler: tracesSamplerVar(env),
    otelTrustCallerSampling: env.OTEL_TRUST_CALLER_SAMPLING === 'true' || env.OTEL_TRUST_CALLER_SAMPLING === '1',
    sessionSecret: env.SESSION_SECRET || undefined,
    cryptoSecret: env.CRYPTO_SECRET || undefined,
    mcpStdioEnabled: env.MCP_STDIO_ENABLED === 'true' || env.MCP_STDIO_ENABLED === '1',
    nodeType,
    syncFrequency: intVar(env, 'SYNC_FREQUENCY', 60, 1),
    channelTestFrequency: intVar(env, 'CHANNEL_TEST_FREQUENCY', 0, 0),
    streamingTimeout: intVar(env, 'STREAMING_TIMEOUT', 120, 1),
    relayMaxConnsPerHost: intVar(env, 'RELAY_MAX_CONNS_PER_HOST', 0, 0),
    relayHttp2: env.RELAY_HTTP2_ENABLED === 'true' || env.RELAY_HTTP2_ENABLED === '1',
    taskPollIntervalMs: intVar(env, 'TASK_POLL_INTERVAL_MS', 15_000, 100),
    taskTimeoutMinutes: intVar(env, 'TASK_TIMEOUT_MINUTES', 1440, 0),
    trustProxy: trustProxyVar(env),
    realtimeIdleTimeout: intVar(env, 'REALTIME_IDLE_TIMEOUT', 600, 1),
    bodyLimit: intVar(env, 'MAX_REQUEST_BODY_MB', 32, 1) * 1024 * 1024,
    uploadSpoolCallerBytes: intVar(env, 'UPLOAD_SPOOL_CALLER_MB', 128, 1) * 1024 * 1024,
    uploadSpoolTotalBytes: intVar(env, 'UPLOAD_SPOOL_TOTAL_MB', 1024, 1) * 1024 * 1024,
    headersTimeout,
    requestTimeout,
    bodyIdleTimeout: intVar(env, 'HTTP_BODY_IDLE_TIMEOUT', 30, 0),
    bodyMinRate: intVar(env, 'HTTP_BODY_MIN_RATE', DEFAULT_BODY_MIN_RATE, 0),
    bodyMinRateGrace: intVar(env, 'HTTP_BODY_MIN_RATE_GRACE', DEFAULT_BODY_MIN_RATE_GRACE_S, 1),
    criticalRateLimit: intVar(env, 'CRITICAL_RATE_LIMIT', 20, 1),
    criticalRateLimitDuration: intVar(env, 'CRITICAL_RATE_LIMIT_DURATION', 1200, 1),
    dataDir: env.DATA_DIR || path.dirname(sqlitePath),
    journalFsync,
    journalFsyncIntervalMs: intVar(env, 'JOURNAL_FSYNC_INTERVAL_MS', 10, 1),
    memoryReleaseIdleSeconds: intVar(env, 'MEMORY_RELEASE_IDLE_SECONDS', 10, 0),
    webDist: env.WEB_DIST || path.resolve(import.meta.dirname, '../../web/dist'),
    logLevel: env.LOG_LEVEL || 'info',
    logDir: env.LOG_DIR ? path.resolve(env.LOG_DIR) : '',
    version: env.TOLLWAY_VERSION || '0.1.0',
    timeZone: timeZoneVar(env),
    turnstileVerifyUrl: urlVar(
      env,
      'TURNSTILE_VERIFY_URL',
      'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    ),
    githubBaseUrl: urlVar(env, 'GITHUB_BASE_URL', 'https://github.com').replace(/\/+$/, ''),
    githubApiUrl: urlVar(env, 'GITHUB_API_URL', 'https://api.github.com').replace(/\/+$/, ''),
    linuxDoBaseUrl: urlVar(env, 'LINUXDO_BASE_URL', 'https://connect.linux.do').replace(/\/+$/, ''),
    codexOAuthBaseUrl: urlVar(env, 'CODEX_OAUTH_BASE_URL', 'https://auth.openai.com').replace(/\/+$/, ''),
    ratioPresetBaseUrl: urlVar(
      env,
      'RATIO_PRESET_BASE_URL',
      'https://public-assets.veloera.org/defaults/model-ratios',
    ).replace(/\/+$/, ''),
    syncUpstreamBase: urlVar(env, 'SYNC_UPSTREAM_BASE', 'https://basellm.github.io/llm-metadata').replace(/\/+$/, ''),
    stripeApiBase: urlVar(env, 'STRIPE_API_BASE', 'https://api.stripe.com').replace(/\/+$/, ''),
    creemApiBase: env.CREEM_API_BASE ? urlVar(env, 'CREEM_API_BASE', '').replace(/\/+$/, '') : undefined,
  };
}
