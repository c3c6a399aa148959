import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration from the environment', () => {
  it('has new-api compatible defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      sqlDsn: '',
      sqlitePath: './data/tollway.db',
      nodeType: 'master',
      syncFrequency: 60,
      streamingTimeout: 120,
      criticalRateLimit: 20,
      criticalRateLimitDuration: 1200,
      turnstileVerifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    });
    expect(loadConfig({ TURNSTILE_VERIFY_URL: 'http://127.0.0.1:9/verify' }).turnstileVerifyUrl).toBe(
      'http://127.0.0.1:9/verify',
    );
  });

  it.each([
    [{ SQL_DSN: 'oracle://x' }, 'SQL_DSN'],
    [{ SQL_DSN: 'postgres://' }, 'SQL_DSN'],
    [{ LOG_SQL_DSN: 'nonsense' }, 'LOG_SQL_DSN'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ NODE_TYPE: 'leader' }, 'NODE_TYPE'],
    [{ SYNC_FREQUENCY: '0' }, 'SYNC_FREQUENCY'],
    [{ REDIS_CONN_STRING: 'localhost:6379' }, 'REDIS_CONN_STRING'],
    [{ TURNSTILE_VERIFY_URL: 'challenges.cloudflare.com/turnstile' }, 'TURNSTILE_VERIFY_URL'],
    [{ JOURNAL_FSYNC: 'sometimes' }, 'JOURNAL_FSYNC'],
    [{ JOURNAL_FSYNC_INTERVAL_MS: '0' }, 'JOURNAL_FSYNC_INTERVAL_MS'],
  ])('names the variable for %o', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (err) {
      expect((err as ConfigError).variable).toBe(variable);
      expect((err as Error).message.startsWith(`${variable}:`)).toBe(true);
    }
  });

  it('accepts URL and Go-style DSNs', () => {
    expect(loadConfig({ SQL_DSN: 'postgres://u:p@h:5432/db' }).sqlDsn).toBe('postgres://u:p@h:5432/db');
    expect(loadConfig({ SQL_DSN: 'root:pw@tcp(localhost:3306)/oneapi?parseTime=true' }).sqlDsn).toContain('@tcp(');
    expect(loadConfig({ SQL_DSN: 'mysql://root@127.0.0.1:3306/test' }).sqlDsn).toContain('mysql://');
  });

  it('reads the journal fsync mode and interval', () => {
    expect(loadConfig({})).toMatchObject({ journalFsync: 'interval', journalFsyncIntervalMs: 10 });
    expect(loadConfig({ JOURNAL_FSYNC: 'always', JOURNAL_FSYNC_INTERVAL_MS: '50' })).toMatchObject({
      journalFsync: 'always',
      journalFsyncIntervalMs: 50,
    });
  });

  it('reads where metrics are served and where spans go', () => {
    expect(loadConfig({})).toMatchObject({
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      otlpTracesEndpoint: undefined,
      otelServiceName: 'tollway',
    });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' })).toMatchObject({
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
    });
    expect(() => loadConfig({ METRICS_PORT: 'nine' })).toThrow(/^METRICS_PORT:/);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).otlpTracesEndpoint).toBe(
      'http://collector:4318/v1/traces',
    );
    const both = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/ingest',
      OTEL_SERVICE_NAME: 'gw',
    };
    expect(loadConfig(both)).toMatchObject({
      otlpTracesEndpoint: 'https://traces.example/ingest',
      otelServiceName: 'gw',
    });
    expect(loadConfig({ ...both, OTEL_SDK_DISABLED: 'true' }).otlpTracesEndpoint).toBeUndefined();
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /^OTEL_EXPORTER_OTLP_ENDPOINT:/,
    );
  });
});
