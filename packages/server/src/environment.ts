/**
 * Every environment variable the server reads, with its default and meaning: the source of the environment
 * reference (docs/install/environment.md, written by `npm run docs:env`). Data only; config.ts and the few other
 * readers parse the values. The docs test fails when a variable read in src/ is missing here, when one listed here
 * is read nowhere, or when the Markdown differs from what the script writes. Meanings are Markdown; their links are
 * relative to docs/install/.
 */

/** Sections of the reference, in the order they are printed. */
export const ENVIRONMENT_GROUPS = {
  server: 'Server',
  database: 'Databases',
  cluster: 'Cluster (Redis)',
  secrets: 'Secrets',
  durability: 'Durability and memory',
  requests: 'Requests, uploads and client addresses',
  relay: 'Relay and channels',
  tasks: 'Tasks (Midjourney, Suno, video)',
  observability: 'Logs, metrics and tracing',
  outside: 'Outside services',
} as const;

export interface EnvironmentVariable {
  name: string;
  group: keyof typeof ENVIRONMENT_GROUPS;
  /** The default as Markdown (a value in backticks, or a description in italics). */
  default: string;
  meaning: string;
}

export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  {
    name: 'PORT',
    group: 'server',
    default: '`3000`',
    meaning: 'HTTP port for the API, the relay and the console.',
  },
  {
    name: 'HOST',
    group: 'server',
    default: '`0.0.0.0`',
    meaning: 'Address to listen on.',
  },
  {
    name: 'SQL_DSN',
    group: 'database',
    default: '*(empty: SQLite)*',
    meaning:
      "Main database. `postgres://user:pass@host:5432/db`, `mysql://user:pass@host:3306/db`, or new-api's Go form `user:pass@tcp(host:3306)/db`. Empty means SQLite at `SQLITE_PATH`.",
  },
  {
    name: 'SQLITE_PATH',
    group: 'database',
    default: '`./data/tollway.db`',
    meaning: 'SQLite file; its folder is created.',
  },
  {
    name: 'LOG_SQL_DSN',
    group: 'database',
    default: '*(empty)*',
    meaning:
      "Separate database for the logs table (same forms as `SQL_DSN`; migrated at start like the main one). The writer commits each batch's counters to the main database and its logs to this one, each side recording the batch so a replay completes a half-applied batch; account logs (top-up, check-in, invites) follow their balance transaction once it commits. Empty: logs stay in the main database, in the same transaction as the balance change.",
  },
  {
    name: 'REDIS_CONN_STRING',
    group: 'cluster',
    default: '*(empty)*',
    meaning:
      '`redis://…` enables cluster mode: balances reserved atomically in Redis across every node, shared rate limits, instant cache invalidation (options, channels, tokens, users).',
  },
  {
    name: 'REDIS_KEY_PREFIX',
    group: 'cluster',
    default: '`tollway:`',
    meaning: 'Prefix for every Redis key and channel.',
  },
  {
    name: 'TASK_POLL_INTERVAL_MS',
    group: 'tasks',
    default: '`15000`',
    meaning:
      'Time between passes of the task poller (Midjourney, Suno and video tasks; at least 100). See [Tasks](../using/tasks.md).',
  },
  {
    name: 'TASK_TIMEOUT_MINUTES',
    group: 'tasks',
    default: '`1440`',
    meaning: 'An unfinished task older than this fails with a refund; `0` never.',
  },
  {
    name: 'SESSION_SECRET',
    group: 'secrets',
    default: '*(generated)*',
    meaning:
      'Key that seals session cookies. Unset: a random one is generated once and kept in `DATA_DIR/session_secret`, with a warning. Every node of a cluster needs the same value.',
  },
  {
    name: 'CRYPTO_SECRET',
    group: 'secrets',
    default: '*(empty)*',
    meaning:
      'Encrypts secrets at rest (channel keys, secret options, API token keys, webhook secrets; access tokens kept as keyed digests); see [Secrets at rest](../operating/safeguards.md#secrets-at-rest). Set it once and keep it: a start with encrypted data and a missing or different value stops with an error naming it. Every node of a cluster needs the same value.',
  },
  {
    name: 'DATA_DIR',
    group: 'server',
    default: 'folder of `SQLITE_PATH`',
    meaning:
      "Where the generated session secret and the writer's journal (`journal/`) are stored. Keep it on a local disk that survives restarts.",
  },
  {
    name: 'SHUTDOWN_TIMEOUT',
    group: 'server',
    default: '`25`',
    meaning:
      'Seconds a graceful stop may take (1–86400): open connections are cut shortly before it, the process exits 1 at it. See [Durability](../operating/durability.md).',
  },
  {
    name: 'JOURNAL_FSYNC',
    group: 'durability',
    default: '`interval`',
    meaning:
      'When the journal reaches the disk itself: `always` (each call waits for its opening line to be fsynced; power-loss safe), `interval` (fsync in the background), `off`. Every mode survives a process crash. See [Durability](../operating/durability.md).',
  },
  {
    name: 'REDIS_RECONCILE_INTERVAL',
    group: 'cluster',
    default: '`30`',
    meaning:
      'Seconds between reconciliations of Redis balances with the database (1–3600; see [Durability](../operating/durability.md)).',
  },
  {
    name: 'METRICS_TOKEN',
    group: 'observability',
    default: '*(empty)*',
    meaning:
      'Enables `GET /metrics` (Prometheus text) for `Authorization: Bearer <token>`; at least 16 characters. Empty: `/metrics` is 404 on the public port. See [Metrics](../operating/metrics.md).',
  },
  {
    name: 'METRICS_PORT',
    group: 'observability',
    default: '*(empty)*',
    meaning: 'Serves `GET /metrics` on a port of its own (with `METRICS_TOKEN` set, the token is required there too).',
  },
  {
    name: 'METRICS_HOST',
    group: 'observability',
    default: '`127.0.0.1`',
    meaning: 'The address `METRICS_PORT` listens on.',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    group: 'observability',
    default: '*(empty: no tracing)*',
    meaning: 'OTLP/HTTP collector; spans go to `<endpoint>/v1/traces`. See [Tracing](../operating/tracing.md).',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    group: 'observability',
    default: '*(empty)*',
    meaning: 'The full traces URL; it wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.',
  },
  {
    name: 'OTEL_SERVICE_NAME',
    group: 'observability',
    default: '`tollway`',
    meaning: 'The service name on exported spans.',
  },
  {
    name: 'OTEL_TRACES_SAMPLER',
    group: 'observability',
    default: '`parentbased_always_on`',
    meaning:
      'Which calls are traced: `always_on`, `always_off`, `traceidratio`, `parentbased_always_on`, `parentbased_always_off`, `parentbased_traceidratio`. Any other value stops the start.',
  },
  {
    name: 'OTEL_TRACES_SAMPLER_ARG',
    group: 'observability',
    default: '`1`',
    meaning: 'The ratio (0–1) of the `traceidratio` samplers.',
  },
  {
    name: 'OTEL_TRUST_CALLER_SAMPLING',
    group: 'observability',
    default: '`false`',
    meaning:
      "`true`: a caller's `traceparent` is believed: the call joins the caller's trace and, under a parent-based sampler, the caller's sampled flag decides. Default: each call starts its own trace (the caller's span is a link on it) and only your sampler decides. Turn it on only when the callers are your own services.",
  },
  {
    name: 'JOURNAL_FSYNC_INTERVAL_MS',
    group: 'durability',
    default: '`10`',
    meaning: 'Milliseconds between background fsyncs with `JOURNAL_FSYNC=interval`.',
  },
  {
    name: 'MCP_STDIO_ENABLED',
    group: 'relay',
    default: '`false`',
    meaning:
      '`true` (or `1`): registered MCP servers may be local programs started over stdio, from the command an administrator registered (never from a caller); otherwise only remote servers (Streamable HTTP, SSE). See [MCP gateway](../operating/mcp.md).',
  },
  {
    name: 'MEMORY_RELEASE_IDLE_SECONDS',
    group: 'durability',
    default: '`10`',
    meaning:
      'Seconds of an idle event loop after which memory left unused by a burst of calls goes back to the system (a 0.1–0.3 s pause, once per burst); `0`: off. See [Memory](../operating/memory.md).',
  },
  {
    name: 'NODE_TYPE',
    group: 'server',
    default: '`master`',
    meaning: '`master` or `slave` (slaves will skip background jobs).',
  },
  {
    name: 'TZ',
    group: 'server',
    default: "*(the system's zone)*",
    meaning: 'IANA time zone (e.g. `Asia/Shanghai`) that decides calendar days, such as the once-a-day check-in.',
  },
  {
    name: 'SYNC_FREQUENCY',
    group: 'server',
    default: '`60`',
    meaning:
      "Seconds between reloads of options and channels from the database (how other nodes' changes arrive without Redis).",
  },
  {
    name: 'CHANNEL_TEST_FREQUENCY',
    group: 'relay',
    default: '*(empty: off)*',
    meaning:
      'Minutes between background tests of automatically disabled channels; one that passes is enabled again when AutomaticEnableChannelEnabled is on. Master node only.',
  },
  {
    name: 'STREAMING_TIMEOUT',
    group: 'relay',
    default: '`120`',
    meaning: 'Idle timeout in seconds for streamed relay answers.',
  },
  {
    name: 'REALTIME_IDLE_TIMEOUT',
    group: 'relay',
    default: '`600`',
    meaning:
      'Seconds a realtime WebSocket session may pass without a frame either way before both ends are closed; peers are also pinged every 30 s and dropped when they stop answering.',
  },
  {
    name: 'MAX_REQUEST_BODY_MB',
    group: 'requests',
    default: '`32`',
    meaning: 'Largest accepted request body; larger bodies get 413.',
  },
  {
    name: 'UPLOAD_SPOOL_CALLER_MB',
    group: 'requests',
    default: '`128`',
    meaning:
      'Megabytes of multipart uploads (image edits, transcriptions, translations, video references) one user may have spooled to disk at once, all their tokens together; more gets 429 `upload_limit_exceeded` with `retry-after`, before anything is written.',
  },
  {
    name: 'UPLOAD_SPOOL_TOTAL_MB',
    group: 'requests',
    default: '`1024`',
    meaning:
      'Megabytes of spooled uploads the whole process may hold at once; past it, new uploads get 429 `upload_limit_exceeded`.',
  },
  {
    name: 'HTTP_HEADERS_TIMEOUT',
    group: 'requests',
    default: '`60`',
    meaning:
      "Seconds a client may take to send a request's headers; slower ones get 408 and the connection is closed. At most `HTTP_REQUEST_TIMEOUT`.",
  },
  {
    name: 'HTTP_REQUEST_TIMEOUT',
    group: 'requests',
    default: '`300`',
    meaning:
      'Seconds a client may take to send a whole request, headers and body (a 32 MB upload needs about 0.9 Mbit/s); then 408. Answers are not timed: a streamed or slow answer runs as long as the upstream does. `0`: off.',
  },
  {
    name: 'HTTP_BODY_IDLE_TIMEOUT',
    group: 'requests',
    default: '`30`',
    meaning:
      'Seconds a request body may pause between two pieces before the connection is dropped (a trickled body). `0`: off.',
  },
  {
    name: 'HTTP_BODY_MIN_RATE',
    group: 'requests',
    default: '`500`',
    meaning:
      "Bytes per second a request body must keep on average once `HTTP_BODY_MIN_RATE_GRACE` has passed (as Apache mod_reqtimeout's `body=20,MinRate=500`: the body may take the grace plus one second per 500 bytes received). A slower body gets 408 and the connection is closed, on every route. `0`: off.",
  },
  {
    name: 'HTTP_BODY_MIN_RATE_GRACE',
    group: 'requests',
    default: '`20`',
    meaning: 'Seconds a request body may take before `HTTP_BODY_MIN_RATE` counts.',
  },
  {
    name: 'CRITICAL_RATE_LIMIT',
    group: 'requests',
    default: '`20`',
    meaning: 'Login, register and setup calls allowed per IP per window.',
  },
  {
    name: 'CRITICAL_RATE_LIMIT_DURATION',
    group: 'requests',
    default: '`1200`',
    meaning:
      "That window, in seconds (new-api's 20 per 20 minutes). It slides: the previous window's calls count by the share of it still inside, so no boundary grants a second allowance at once.",
  },
  {
    name: 'TURNSTILE_VERIFY_URL',
    group: 'outside',
    default: '`https://challenges.cloudflare.com/turnstile/v0/siteverify`',
    meaning:
      'Where the bot check (TurnstileCheckEnabled) verifies tokens from login, registration, verification codes and reset mails; change only to reach a stand-in.',
  },
  {
    name: 'GITHUB_BASE_URL',
    group: 'outside',
    default: '`https://github.com`',
    meaning:
      "Where GitHub sign-in exchanges codes (`/login/oauth/access_token`); set to a GitHub Enterprise server's address.",
  },
  {
    name: 'GITHUB_API_URL',
    group: 'outside',
    default: '`https://api.github.com`',
    meaning: 'Where GitHub sign-in reads the user (`/user`); GitHub Enterprise: `https://<host>/api/v3`.',
  },
  {
    name: 'LINUXDO_BASE_URL',
    group: 'outside',
    default: '`https://connect.linux.do`',
    meaning: "LinuxDO Connect's address for sign-in (`<base>/oauth2/token`, `<base>/api/user`).",
  },
  {
    name: 'CODEX_OAUTH_BASE_URL',
    group: 'outside',
    default: '`https://auth.openai.com`',
    meaning:
      "OpenAI's sign-in service for Codex channels' credentials (`<base>/oauth/authorize`, `<base>/oauth/token`: sign-in, refresh); change only to reach a stand-in.",
  },
  {
    name: 'RATIO_PRESET_BASE_URL',
    group: 'outside',
    default: '`https://public-assets.veloera.org/defaults/model-ratios`',
    meaning:
      'Where the preset ratio files are fetched (`<base>/<source>/prompt.json` and `completion.json` for flexible, openrouter and mixed; `<base>/completion.json` for legacy). Fetched through the outbound (SSRF) guard.',
  },
  {
    name: 'SYNC_UPSTREAM_BASE',
    group: 'outside',
    default: '`https://basellm.github.io/llm-metadata`',
    meaning:
      "Where the model registry's catalog is fetched by *Sync* of model management (`<base>/api/newapi/models.json` and `vendors.json`; with a locale `<base>/api/i18n/<locale>/newapi/…`), as new-api's variable of the same name. Fetched through the outbound (SSRF) guard, at most 10 MB per file and 15 seconds.",
  },
  {
    name: 'STRIPE_API_BASE',
    group: 'outside',
    default: '`https://api.stripe.com`',
    meaning:
      'Where Stripe Checkout Sessions are created ([payments](../operating/payments.md)); change only to reach a stand-in.',
  },
  {
    name: 'CREEM_API_BASE',
    group: 'outside',
    default: '*(empty)*',
    meaning:
      'Where Creem checkouts are created (`<base>/v1/checkouts`). Empty: `https://api.creem.io`, or `https://test-api.creem.io` while the `CreemTestMode` option is on.',
  },
  {
    name: 'TRUST_PROXY',
    group: 'requests',
    default: '`false`',
    meaning:
      "Which reverse proxies' `X-Forwarded-For` is believed. `true` (kept for compatibility) means one hop: the connection is the proxy and the client is the right-most entry. A number `n`: a chain of n proxies, the client is the n-th entry from the right. A list of addresses and CIDR ranges (e.g. `10.0.0.0/8, 2001:db8::/32`): the connection must come from one of them, and `X-Forwarded-For` is read from the right, skipping listed entries; the client is the first entry that is not a proxy. The left-most entry, chosen by whoever called the first proxy, is never believed. The settings' ReverseProxyEnabled reads nginx's `X-Real-IP` or Cloudflare's `CF-Connecting-IP` (ReverseProxyProvider) first, but only from a trusted proxy: `TRUST_PROXY`'s, or without it a connection from loopback or a private network (behind Cloudflare, list Cloudflare's ranges in `TRUST_PROXY`). Otherwise forwarding headers are ignored: the address is the connection's, for token IP allow-lists, rate limits and logs alike. Any other value stops the start.",
  },
  {
    name: 'LOG_LEVEL',
    group: 'observability',
    default: '`info`',
    meaning: 'pino level (`debug`, `info`, `warn`, `error`).',
  },
  {
    name: 'LOG_DIR',
    group: 'observability',
    default: '*(empty)*',
    meaning:
      'A directory where the server also writes its log, one file per start (`tollway-<YYYYMMDDHHMMSS>.log`, owner-only). The performance panel lists these files and deletes old ones (by count or age); nothing else in the directory is touched. Empty: the log goes to stdout only. See [Price sync and the performance panel](../operating/price-sync-and-performance.md).',
  },
  {
    name: 'LOG_REQUESTS',
    group: 'observability',
    default: '`false`',
    meaning: '`true` logs one line per request.',
  },
  {
    name: 'WEB_DIST',
    group: 'server',
    default: '`packages/web/dist`',
    meaning: 'Where the built console is served from.',
  },
  {
    name: 'RELAY_MAX_CONNS_PER_HOST',
    group: 'relay',
    default: '`0` (no limit)',
    meaning:
      "Connections per upstream origin. With a limit, calls beyond it **wait** for a free connection (they do not fail); a waiting call whose client has gone away is dropped, unsent, when its turn comes. A channel's `setting.max_conns_per_host` overrides it. See [Upstream connections](../operating/upstream-connections.md).",
  },
  {
    name: 'RELAY_HTTP2_ENABLED',
    group: 'relay',
    default: '`false`',
    meaning:
      "HTTP/2 to upstreams that offer it over TLS (ALPN). An HTTP/2 connection carries up to 100 calls at once; an `http://` upstream, or one that answers HTTP/1.1, keeps one call per connection. A channel's `setting.http2_enabled` overrides it.",
  },
  {
    name: 'OTEL_SDK_DISABLED',
    group: 'observability',
    default: '`false`',
    meaning: '`true` turns tracing off whatever the endpoint says.',
  },
  {
    name: 'TOLLWAY_VERSION',
    group: 'server',
    default: '`0.1.0`',
    meaning:
      "The version the server reports (`GET /api/status`, the OpenAPI document, traces' `service.version`) and records at setup.",
  },
];
